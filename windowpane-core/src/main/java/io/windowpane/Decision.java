package io.windowpane;

import io.windowpane.internal.ApiAccess;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The answer of {@link RateLimiter#tryAcquire}: a value, never an exception. Immutable.
 *
 * <ul>
 *   <li>{@link #allowed()}: the permits were recorded in every limit of the quota;
 *   <li>{@link #remaining()}: permits a request could still take right now, the smallest over
 *       the limits (after this request when allowed);
 *   <li>{@link #deniedBy()}: the limit that must wait longest, when denied;
 *   <li>{@link #retryAfter()}: when denied, the time after which the same request would be
 *       allowed if nothing else happened in between; zero when allowed;
 *   <li>{@link #engine()} and {@link #degraded()}: through a {@link Failover} chain, the member
 *       that answered and whether that was a fallback (or the chain's last-resort policy).
 * </ul>
 *
 * <p>{@link #equals} and {@link #hashCode} compare the answer (allowed, remaining, deniedBy,
 * retryAfter), not who gave it.
 */
public final class Decision {

  /** Allowed decisions with small remainders, shared: the common case allocates nothing. */
  private static final Decision[] ALLOWED = new Decision[1024];

  static {
    for (int i = 0; i < ALLOWED.length; i++) {
      ALLOWED[i] = new Decision(true, i, null, 0);
    }
    ApiAccess.decisions(Decision::answeredBy);
  }

  private final boolean allowed;
  private final long remaining;
  private final Limit deniedBy;
  private final long retryAfterMillis;
  private final String engine; // null: not answered through a failover chain
  private final boolean degraded;

  private Decision(boolean allowed, long remaining, Limit deniedBy, long retryAfterMillis) {
    this(allowed, remaining, deniedBy, retryAfterMillis, null, false);
  }

  private Decision(boolean allowed, long remaining, Limit deniedBy, long retryAfterMillis,
      String engine, boolean degraded) {
    this.allowed = allowed;
    this.remaining = remaining;
    this.deniedBy = deniedBy;
    this.retryAfterMillis = retryAfterMillis;
    this.engine = engine;
    this.degraded = degraded;
  }

  /**
   * This decision as answered by {@code engine} ({@link #engine()}), a fallback or last resort
   * when {@code degraded}. A failover chain stamps its members' answers with it (through
   * {@link ApiAccess}); it allocates, so the chain caches the common allowed answers.
   */
  private Decision answeredBy(String engine, boolean degraded) {
    return new Decision(allowed, remaining, deniedBy, retryAfterMillis,
        Objects.requireNonNull(engine, "engine"), degraded);
  }

  /** An allowed decision with {@code remaining} permits left. */
  public static Decision allowed(long remaining) {
    if (remaining >= 0 && remaining < ALLOWED.length) {
      return ALLOWED[(int) remaining];
    }
    return new Decision(true, remaining, null, 0);
  }

  /** A denied decision. */
  public static Decision denied(long remaining, Limit deniedBy, long retryAfterMillis) {
    return new Decision(false, remaining, Objects.requireNonNull(deniedBy, "deniedBy"),
        retryAfterMillis);
  }

  /** Whether the permits were recorded. */
  public boolean allowed() {
    return allowed;
  }

  /** Permits that a request could take right now (0 or more). */
  public long remaining() {
    return remaining;
  }

  /** The limit that denied the request; empty when allowed. */
  public Optional<Limit> deniedBy() {
    return Optional.ofNullable(deniedBy);
  }

  /** How long until the same request would fit; zero when allowed. */
  public Duration retryAfter() {
    return Duration.ofMillis(retryAfterMillis);
  }

  /** {@link #retryAfter()} in milliseconds. */
  public long retryAfterMillis() {
    return retryAfterMillis;
  }

  /**
   * The member of a {@link Failover} chain that answered ("redis", "etcd", "local", or "none"
   * for the chain's last-resort policy); empty for a decision made by an engine directly, which
   * is then the {@link Windowpane}'s own ({@link Windowpane#engineName()}).
   */
  public Optional<String> engine() {
    return Optional.ofNullable(engine);
  }

  /**
   * Whether a failover chain answered from a fallback member or by its last-resort policy
   * instead of from its primary. False for decisions made by an engine directly.
   */
  public boolean degraded() {
    return degraded;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Decision)) {
      return false;
    }
    Decision that = (Decision) o;
    return allowed == that.allowed && remaining == that.remaining
        && retryAfterMillis == that.retryAfterMillis && Objects.equals(deniedBy, that.deniedBy);
  }

  @Override
  public int hashCode() {
    return Objects.hash(allowed, remaining, deniedBy, retryAfterMillis);
  }

  @Override
  public String toString() {
    String by = engine == null ? "" : ", engine=" + engine + (degraded ? ", degraded" : "");
    return allowed
        ? "allowed(remaining=" + remaining + by + ")"
        : "denied(by=" + deniedBy.name() + ", remaining=" + remaining + ", retryAfter="
            + retryAfterMillis + "ms" + by + ")";
  }
}
