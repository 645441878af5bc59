package io.windowpane.spring.internal;

import java.util.function.UnaryOperator;

/**
 * The root object of a filter rule's key expression, the same on servlet and WebFlux:
 * {@code ip}, {@code method}, {@code path}, {@code principal} and {@code header('name')}.
 */
public final class RequestView {

  private final String ip;
  private final String method;
  private final String path;
  private final String principal;
  private final UnaryOperator<String> headers;

  RequestView(String ip, String method, String path, String principal,
      UnaryOperator<String> headers) {
    this.ip = ip;
    this.method = method;
    this.path = path;
    this.principal = principal;
    this.headers = headers;
  }

  /** The client's address as the server sees it (no X-Forwarded-For unless the server applies it). */
  public String getIp() {
    return ip;
  }

  public String getMethod() {
    return method;
  }

  /** The path within the application. */
  public String getPath() {
    return path;
  }

  /** The authenticated principal's name, or null. */
  public String getPrincipal() {
    return principal;
  }

  /** The first value of header {@code name}, or null. */
  public String header(String name) {
    return headers.apply(name);
  }
}
