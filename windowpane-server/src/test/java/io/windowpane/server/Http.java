package io.windowpane.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** A small HTTP client for the tests: real requests to a real server on a loopback port. */
final class Http {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient client = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  private final String token;

  Http(String base) {
    this(base, null);
  }

  private Http(String base, String token) {
    this.base = base;
    this.token = token;
  }

  /** The same client sending {@code Authorization: Bearer token}. */
  Http withToken(String token) {
    return new Http(base, token);
  }

  /** A reply: status, headers and the body, parsed when it is JSON. */
  record Reply(int status, java.net.http.HttpHeaders headers, String text) {
    JsonNode json() {
      try {
        return JSON.readTree(text);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + text, e);
      }
    }

    Optional<String> header(String name) {
      return headers.firstValue(name);
    }

    String error() {
      return json().path("error").asText();
    }

    String field() {
      return json().path("field").asText(null);
    }
  }

  Reply get(String path) {
    return send(builder(path).GET());
  }

  Reply post(String path, String body) {
    return send(builder(path).POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  /** A POST with one more request header, e.g. a W3C traceparent. */
  Reply post(String path, String body, String header, String value) {
    return send(builder(path).header(header, value)
        .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  Reply method(String method, String path) {
    return send(builder(path).method(method, HttpRequest.BodyPublishers.noBody()));
  }

  private HttpRequest.Builder builder(String path) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(20));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  Reply send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> r = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(r.statusCode(), r.headers(), r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
