package io.windowpane.spring;

import io.windowpane.Decision;
import java.util.Map;

/**
 * A limiter denied a call to a {@link RateLimited} method (or a request matched by a
 * {@code windowpane.filter} rule). The starter's web support answers it with 429
 * {@code application/problem+json} and the {@link #headers()}; handle it yourself elsewhere.
 */
public final class RateLimitExceededException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String limiter;
  private final transient Decision decision;
  private final Map<String, String> headers;
  private final boolean degraded;

  /** {@code headers}: RateLimit-Policy, RateLimit (when the decision has state), Retry-After. */
  public RateLimitExceededException(String limiter, Decision decision,
      Map<String, String> headers, boolean degraded) {
    super("rate limit of " + limiter + " exceeded"
        + decision.deniedBy().map(l -> " (" + l.name() + ")").orElse("")
        + "; retry after " + decision.retryAfterMillis() + " ms");
    this.limiter = limiter;
    this.decision = decision;
    this.headers = Map.copyOf(headers);
    this.degraded = degraded;
  }

  /** The limiter that denied: its name, or {@code a:b} for a combined quota. */
  public String limiter() {
    return limiter;
  }

  /** The decision: the limit that denied and the exact time until the call would fit. */
  public Decision decision() {
    return decision;
  }

  /** The response headers the denial carries, in the service's format. */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * Whether the backend failed and {@code windowpane.engine.onFailure: deny} answered (the
   * decision then knows no state).
   */
  public boolean degraded() {
    return degraded;
  }
}
