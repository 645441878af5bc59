package io.windowpane;

import io.windowpane.spi.Checks;
import io.windowpane.spi.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link DistributedLock} behaves: the lease's time to live, whether a watchdog renews it
 * while held, and the backoff between attempts of a waiting {@code tryLock}. Immutable;
 * validated when built.
 *
 * <pre>{@code
 * LockOptions.defaults()                              // ttl 10 s, watchdog on, exponential backoff
 *     .withTtl(Duration.ofSeconds(30))
 *     .withBackoff(Backoff.fixed(Duration.ofMillis(100)));
 * LockOptions.defaults().withoutWatchdog();           // the lease ends ttl after it was taken
 * }</pre>
 *
 * <table>
 *   <caption>Options</caption>
 *   <tr><th>option</th><th>default</th><th>range</th></tr>
 *   <tr><td>ttl</td><td>10 s</td><td>10 ms to 1 day</td></tr>
 *   <tr><td>watchdog</td><td>on: renews every ttl / 3</td><td>on, off</td></tr>
 *   <tr><td>backoff</td><td>exponential 10 ms to 1 s, full jitter</td><td>see {@link Backoff}</td></tr>
 * </table>
 */
public final class LockOptions {

  /** Default time to live of a lease: 10 s. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(10);

  /** Shortest ttl: 10 ms (the watchdog renews every ttl / 3). */
  public static final long MIN_TTL_MILLIS = 10;

  /** Longest ttl: 1 day. */
  public static final long MAX_TTL_MILLIS = 86_400_000;

  private static final LockOptions DEFAULTS =
      new LockOptions(DEFAULT_TTL.toMillis(), true, Backoff.defaults());

  private final long ttlMillis;
  private final boolean watchdog;
  private final Backoff backoff;

  private LockOptions(long ttlMillis, boolean watchdog, Backoff backoff) {
    this.ttlMillis = ttlMillis;
    this.watchdog = watchdog;
    this.backoff = backoff;
  }

  /** ttl 10 s, watchdog on, exponential backoff from 10 ms to 1 s with full jitter. */
  public static LockOptions defaults() {
    return DEFAULTS;
  }

  /**
   * These options with another time to live (10 ms to 1 day): how long the lock stays taken
   * after it was taken or last renewed, should its holder stop renewing (die, pause, lose the
   * network).
   */
  public LockOptions withTtl(Duration ttl) {
    return new LockOptions(Checks.millis("ttl", ttl, MIN_TTL_MILLIS, MAX_TTL_MILLIS), watchdog,
        backoff);
  }

  /** These options with the watchdog on: a held lease is renewed every ttl / 3 (the default). */
  public LockOptions withWatchdog() {
    return new LockOptions(ttlMillis, true, backoff);
  }

  /**
   * These options with the watchdog off: a lease ends ttl after it was taken, whatever its
   * holder does. For work with a known bound, shorter than the ttl.
   */
  public LockOptions withoutWatchdog() {
    return new LockOptions(ttlMillis, false, backoff);
  }

  /** These options with another backoff between the attempts of a waiting {@code tryLock}. */
  public LockOptions withBackoff(Backoff backoff) {
    return new LockOptions(ttlMillis, watchdog, Checks.notNull("backoff", backoff));
  }

  /** The time to live of a lease. */
  public Duration ttl() {
    return Duration.ofMillis(ttlMillis);
  }

  /** The time to live of a lease, in ms. */
  public long ttlMillis() {
    return ttlMillis;
  }

  /** Whether a watchdog renews held leases. */
  public boolean watchdog() {
    return watchdog;
  }

  /** How often the watchdog renews a held lease: ttl / 3, in ms. */
  public long renewIntervalMillis() {
    return ttlMillis / 3;
  }

  /** The backoff between attempts. */
  public Backoff backoff() {
    return backoff;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof LockOptions)) {
      return false;
    }
    LockOptions that = (LockOptions) o;
    return ttlMillis == that.ttlMillis && watchdog == that.watchdog
        && backoff.equals(that.backoff);
  }

  @Override
  public int hashCode() {
    return Objects.hash(ttlMillis, watchdog, backoff);
  }

  @Override
  public String toString() {
    return "LockOptions[ttl " + Durations.format(ttlMillis) + ", watchdog "
        + (watchdog ? "on" : "off") + ", " + backoff + "]";
  }
}
