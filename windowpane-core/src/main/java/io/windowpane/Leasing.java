package io.windowpane;

import io.windowpane.spi.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * Hot-key leasing for a rate limiter (see docs/leasing.md): set on a quota with
 * {@link Quota#withLeasing(Leasing)}. Immutable; every setter validates at once and returns a
 * new value.
 *
 * <p>A leasing limiter asks its engine for a <em>slice</em> of a key's budget in one atomic call
 * (the engine records the whole slice at its time {@code t0}, as a {@code tryAcquire} of that
 * many permits would), answers further requests for that key from the slice on this node with
 * one compare-and-swap, and gives back what it did not spend when the lease ends: at the end of
 * the pane of {@code t0} ({@link Algorithm#SLIDING_PANES}), of the fixed window of {@code t0}
 * ({@link Algorithm#SLIDING_WEIGHTED}), or {@link #logLifetime()} after asking
 * ({@link Algorithm#SLIDING_LOG}); for a quota, the earliest of its limits. So the panes and
 * weighted algorithms admit exactly what they admit without leasing, and the log admits at most
 * the permits spent within {@code logLifetime} of their grant more in an exact interval.
 *
 * <p>A slice is sized from the key's recent rate on this node times the lease's lifetime, at
 * most {@link #maxShare()} of the room the engine reported at the last grant and at most
 * {@link #maxSlice()}; a key's first lease, and every lease near the limit, is exactly the
 * request (leasing is then a plain {@code tryAcquire}).
 */
public final class Leasing {

  /** Default {@link #maxShare()}: a tenth of the room left. */
  public static final double DEFAULT_MAX_SHARE = 0.1;

  /** Default {@link #logLifetime()}: 5 ms. */
  public static final long DEFAULT_LOG_LIFETIME_MILLIS = 5;

  /** Longest {@link #logLifetime()}: 1 minute. */
  public static final long MAX_LOG_LIFETIME_MILLIS = 60_000;

  private static final MillisClock MONOTONIC = () -> System.nanoTime() / 1_000_000;

  private static final Leasing DEFAULTS =
      new Leasing(DEFAULT_MAX_SHARE, Limit.MAX_PERMITS, DEFAULT_LOG_LIFETIME_MILLIS, MONOTONIC);

  private final double maxShare;
  private final long maxSlice;
  private final long logLifetimeMillis;
  private final MillisClock clock;

  private Leasing(double maxShare, long maxSlice, long logLifetimeMillis, MillisClock clock) {
    this.maxShare = maxShare;
    this.maxSlice = maxSlice;
    this.logLifetimeMillis = logLifetimeMillis;
    this.clock = clock;
  }

  /**
   * Leasing with the defaults: share 0.1, no slice cap but the quota's smallest limit, log
   * lifetime 5 ms, this JVM's monotonic clock ({@link System#nanoTime()}).
   */
  public static Leasing defaults() {
    return DEFAULTS;
  }

  /**
   * The most of the room left (as the engine reported it at this node's last grant for the key)
   * that one slice may take: more than 0, at most 1 (default 0.1). Smaller shares leave more
   * room to other nodes near the limit and cost more lease calls.
   */
  public Leasing maxShare(double share) {
    if (!(share > 0 && share <= 1)) {
      throw new IllegalArgumentException("share must be in (0, 1], was " + share);
    }
    return new Leasing(share, maxSlice, logLifetimeMillis, clock);
  }

  /**
   * The most permits one slice may hold, 1 to {@value Limit#MAX_PERMITS} (default: no cap but
   * the quota's smallest limit). It bounds the log's overshoot (docs/leasing.md) and what a
   * node holds unspent.
   */
  public Leasing maxSlice(long permits) {
    Checks.inRange("permits", permits, 1, Limit.MAX_PERMITS);
    return new Leasing(maxShare, permits, logLifetimeMillis, clock);
  }

  /**
   * How long a slice of a quota with a {@link Algorithm#SLIDING_LOG} limit lives, 1 ms to 1
   * minute (default 5 ms): a permit spent from it up to this long after its grant is counted
   * at the grant's time, which is the log's only overshoot under leasing.
   */
  public Leasing logLifetime(Duration lifetime) {
    long millis = Checks.millis("lifetime", lifetime, 1, MAX_LOG_LIFETIME_MILLIS);
    return new Leasing(maxShare, maxSlice, millis, clock);
  }

  /**
   * This node's clock for lease deadlines: it must never step backwards (default: this JVM's
   * {@link System#nanoTime()} in ms). Only tests change it, to the engine's manual clock.
   */
  public Leasing clock(MillisClock clock) {
    return new Leasing(maxShare, maxSlice, logLifetimeMillis, Checks.notNull("clock", clock));
  }

  /** The most of the room left one slice may take. */
  public double maxShare() {
    return maxShare;
  }

  /** The most permits one slice may hold. */
  public long maxSlice() {
    return maxSlice;
  }

  /** How long a slice lives when the quota has a log limit. */
  public Duration logLifetime() {
    return Duration.ofMillis(logLifetimeMillis);
  }

  /** {@link #logLifetime()} in milliseconds. */
  public long logLifetimeMillis() {
    return logLifetimeMillis;
  }

  /** The clock of lease deadlines on this node. */
  public MillisClock clock() {
    return clock;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Leasing)) {
      return false;
    }
    Leasing that = (Leasing) o;
    return maxShare == that.maxShare && maxSlice == that.maxSlice
        && logLifetimeMillis == that.logLifetimeMillis && clock == that.clock;
  }

  @Override
  public int hashCode() {
    return Objects.hash(maxShare, maxSlice, logLifetimeMillis);
  }

  @Override
  public String toString() {
    return "Leasing(share " + maxShare
        + (maxSlice == Limit.MAX_PERMITS ? "" : ", slice <= " + maxSlice)
        + ", log lifetime " + logLifetimeMillis + " ms)";
  }
}
