package io.windowpane.spi;

import io.windowpane.Decision;
import java.util.Objects;

/**
 * What {@link LimiterStore#lease} answers: {@code permits} of a key's budget, recorded in every
 * limit of the quota at {@code atMillis} by the engine's clock, and the decision of the call.
 *
 * <p>{@code permits > 0}: the grant was recorded, {@code decision} is allowed and its remaining
 * is what the grant left. {@code permits == 0}: nothing was recorded, {@code decision} is the
 * denial {@code tryAcquire(key, minPermits)} would have given (limit, remaining, retryAfter).
 * {@code atMillis} is the instant to hand back to {@link LimiterStore#releaseAsync} for what the
 * holder does not spend; it is the engine's time (the server's on Redis), not the caller's.
 *
 * @param permits permits granted and recorded, 0 to {@code maxPermits}
 * @param atMillis the engine's time at which they were recorded
 * @param decision allowed when {@code permits > 0}, else the denial
 */
public record Grant(long permits, long atMillis, Decision decision) {

  public Grant {
    Objects.requireNonNull(decision, "decision");
    if (permits < 0) {
      throw new IllegalArgumentException("permits must be >= 0, was " + permits);
    }
    if ((permits > 0) != decision.allowed()) {
      throw new IllegalArgumentException(
          "a grant of " + permits + " permits cannot carry " + decision);
    }
  }

  /**
   * The engine that granted, as its decision names it ({@link Decision#engine()}): through a
   * failover chain, the member whose budget holds the permits, to which their release goes.
   * Empty for a grant made by an engine directly.
   */
  public java.util.Optional<String> engine() {
    return decision.engine();
  }
}
