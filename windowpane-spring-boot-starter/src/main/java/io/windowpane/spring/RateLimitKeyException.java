package io.windowpane.spring;

/**
 * The key expression of a {@link RateLimited} method or a {@code windowpane.filter} rule gave
 * null or an empty string, and {@code windowpane.keys.on-null} is {@code reject}. The starter's
 * web support answers it with 400 {@code application/problem+json}; the method did not run and
 * nothing was counted.
 */
public final class RateLimitKeyException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String limiter;

  public RateLimitKeyException(String limiter, String expression) {
    super("the rate-limit key of limiter " + limiter + " is missing: '" + expression
        + "' gave no value");
    this.limiter = limiter;
  }

  /** The limiter whose key is missing. */
  public String limiter() {
    return limiter;
  }
}
