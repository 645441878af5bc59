package io.windowpane.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Real HTTP calls to the application under test, over HTTP/1.1 (no h2c upgrade attempt). The
 * time limit is generous: a cold JVM's first request on a loaded 2-core machine has taken over
 * 10 s. A request that still times out prints every thread's stack (the application runs in this
 * JVM), so a hang can be told from slowness.
 */
public final class Http {

  private static final HttpClient CLIENT = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  private final String base;

  public Http(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  /** GET {@code path} with header pairs. */
  public HttpResponse<String> get(String path, String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(60)).GET();
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    try {
      return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (HttpTimeoutException e) {
      dumpThreads("GET " + path + " timed out");
      throw new UncheckedIOException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
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
