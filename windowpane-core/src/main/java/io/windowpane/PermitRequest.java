package io.windowpane;

import io.windowpane.spi.Checks;

/**
 * One member of an all-or-nothing group: {@code permits} of {@code key} on {@code limiter}, for
 * {@link Windowpane#tryAcquireAllOrNothing}. Immutable; validated at once like
 * {@link RateLimiter#tryAcquire(String, long)}'s arguments: the limiter is not null, the key is 1
 * to 256 characters and {@code permits} is 1 to the limiter's smallest limit, else
 * {@link IllegalArgumentException} naming the argument and its range.
 *
 * <p>{@code limiter.request(key, permits)} builds one too.
 *
 * @param limiter the rate limiter to take the permits from
 * @param key the key, within the limiter's namespace
 * @param permits how many permits, 1 to {@code limiter.quota().smallestPermits()}
 */
public record PermitRequest(RateLimiter limiter, String key, long permits) {

  public PermitRequest {
    Checks.notNull("limiter", limiter);
    Checks.key(key);
    Checks.inRange("permits", permits, 1, limiter.quota().smallestPermits());
  }

  @Override
  public String toString() {
    return permits + " of '" + key + "' on " + limiter.name();
  }
}
