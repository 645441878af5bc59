package io.windowpane.spring.internal;

import io.windowpane.Limit;
import io.windowpane.spring.RateLimitExceededException;

/**
 * The 429 body, RFC 9457 problem details, written by hand so that the annotation's exception
 * handler and both filters send the same bytes whatever JSON library the application uses:
 *
 * <pre>{"type":"about:blank","title":"Too Many Requests","status":429,
 * "detail":"limit per-second of limiter api: 10 per 1s; retry after 730 ms",
 * "instance":"/hello","limiter":"api","deniedBy":{"name":"per-second","permits":10,
 * "windowMillis":1000},"retryAfterMillis":730,"degraded":false}</pre>
 */
public final class ProblemJson {

  public static final String CONTENT_TYPE = "application/problem+json";

  private ProblemJson() {}

  /** The body for {@code denial} of a request to {@code instance} (its path). */
  public static String body(RateLimitExceededException denial, String instance) {
    Limit by = denial.degraded() ? null : denial.decision().deniedBy().orElse(null);
    long retry = denial.decision().retryAfterMillis();
    String detail = by == null
        ? "the backend of limiter " + denial.limiter() + " failed and onFailure is deny; retry"
            + " after " + retry + " ms"
        : "limit " + by.name() + " of limiter " + denial.limiter() + ": " + by.permits()
            + " per " + io.windowpane.spi.Durations.format(by.window().windowMillis())
            + "; retry after " + retry + " ms";
    StringBuilder b = new StringBuilder(256);
    b.append("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,")
        .append("\"detail\":").append(quote(detail)).append(',')
        .append("\"instance\":").append(quote(instance)).append(',')
        .append("\"limiter\":").append(quote(denial.limiter())).append(',')
        .append("\"deniedBy\":");
    if (by == null) {
      b.append("null");
    } else {
      b.append("{\"name\":").append(quote(by.name())).append(",\"permits\":")
          .append(by.permits()).append(",\"windowMillis\":").append(by.window().windowMillis())
          .append('}');
    }
    return b.append(",\"retryAfterMillis\":").append(retry)
        .append(",\"degraded\":").append(denial.degraded()).append('}').toString();
  }

  /** The default {@link io.windowpane.spring.RateLimitDenialBody}: this problem. */
  public static final io.windowpane.spring.RateLimitDenialBody DEFAULT = (denial, path) ->
      new io.windowpane.spring.RateLimitDenialBody.Body(CONTENT_TYPE, body(denial, path));

  /** The 400 body for a missing key ({@code windowpane.keys.on-null: reject}). */
  public static String missingKey(io.windowpane.spring.RateLimitKeyException missing,
      String instance) {
    return "{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,"
        + "\"detail\":" + quote(missing.getMessage()) + ",\"instance\":" + quote(instance)
        + ",\"limiter\":" + quote(missing.limiter()) + "}";
  }

  /** {@code s} as a JSON string. */
  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
