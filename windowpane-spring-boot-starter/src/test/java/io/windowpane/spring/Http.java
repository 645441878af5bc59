package io.windowpane.spring;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.net.ssl.SSLSession;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Real HTTP calls to the application under test, HTTP/1.1, each on a connection of its own
 * ({@code Connection: close}). Not kept alive: under load Reactor Netty (WebFlux) now and then
 * left a kept-alive connection unread after a response, so the next request on it waited until
 * the client gave up (see ChainKillScenarios), which is not what these tests are about. The time
 * limit is generous: a cold JVM's first request on a loaded 2-core machine has taken over 10 s.
 * A request that still times out prints every thread's stack (the application runs in this
 * JVM), so a hang can be told from slowness.
 */
public final class Http {

  private final String base;

  public Http(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  /** GET {@code path} with header pairs. */
  public HttpResponse<String> get(String path, String... headers) {
    URI uri = URI.create(base + path);
    try {
      HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
      c.setConnectTimeout(10_000);
      c.setReadTimeout(60_000);
      c.setInstanceFollowRedirects(false); // as the JDK client did
      c.setRequestProperty("Connection", "close");
      for (int i = 0; i < headers.length; i += 2) {
        c.setRequestProperty(headers[i], headers[i + 1]);
      }
      int status = c.getResponseCode();
      String body;
      try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
        body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      Map<String, List<String>> fields = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
      c.getHeaderFields().forEach((name, values) -> {
        if (name != null) { // the status line
          fields.put(name, values);
        }
      });
      return new Reply(status, body, HttpHeaders.of(fields, (n, v) -> true), uri);
    } catch (SocketTimeoutException e) {
      dumpThreads("GET " + path + " timed out");
      throw new UncheckedIOException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A response read with HttpURLConnection, in the JDK client's shape. */
  private record Reply(int statusCode, String body, HttpHeaders headers, URI uri)
      implements HttpResponse<String> {

    @Override
    public HttpRequest request() {
      return HttpRequest.newBuilder(uri).GET().build();
    }

    @Override
    public Optional<HttpResponse<String>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public HttpClient.Version version() {
      return HttpClient.Version.HTTP_1_1;
    }
  }

  /** Prints every thread's stack to stderr, headed by {@code why}. */
  public static void dumpThreads(String why) {
    StringBuilder s = new StringBuilder(why).append("; threads:\n");
    for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
      s.append(t.getThreadName()).append(' ').append(t.getThreadState()).append('\n');
      for (StackTraceElement e : t.getStackTrace()) {
        s.append("    at ").append(e).append('\n');
      }
    }
    System.err.print(s);
  }

  private static final Pattern METER_VALUE = Pattern.compile("\"value\":([-0-9.E]+)");

  /** The value of a gauge or counter from /actuator/metrics, with one tag or none. */
  public double meter(String name, String tag) {
    HttpResponse<String> reply = get("/actuator/metrics/" + name
        + (tag == null ? "" : "?tag=" + tag));
    if (reply.statusCode() != 200) {
      throw new AssertionError(name + ": " + reply.statusCode() + " " + reply.body());
    }
    Matcher m = METER_VALUE.matcher(reply.body());
    if (!m.find()) {
      throw new AssertionError(name + ": no value in " + reply.body());
    }
    return Double.parseDouble(m.group(1));
  }

  /** The first value of {@code name}, or null. */
  public static String header(HttpResponse<?> reply, String name) {
    return reply.headers().firstValue(name).orElse(null);
  }
}
