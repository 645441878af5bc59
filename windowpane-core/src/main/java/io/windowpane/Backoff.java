package io.windowpane;

import io.windowpane.spi.Checks;
import io.windowpane.spi.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * How long {@link DistributedLock#tryLock(Duration)} waits between attempts on a held lock.
 * Immutable; validated when built.
 *
 * <pre>{@code
 * Backoff.exponential(Duration.ofMillis(10), Duration.ofSeconds(1))  // full jitter: the default
 * Backoff.fixed(Duration.ofMillis(50))                              // no jitter
 * Backoff.fixed(Duration.ofMillis(50)).withJitter(0.2)              // 40 to 60 ms
 * }</pre>
 *
 * <p>The delay before retry {@code n} (0 for the first retry) is {@code base(n)}: the fixed
 * delay, or {@code min(max, initial * 2^n)} for exponential backoff; then jitter spreads it:
 * <ul>
 *   <li>full jitter: uniform in {@code [0, base(n)]} (the default of exponential backoff: many
 *       waiters released at once spread out instead of retrying in lock step; see Brooker,
 *       "Exponential Backoff And Jitter", AWS Architecture Blog, 2015);
 *   <li>{@code ±f}: uniform in {@code [base(n) * (1 - f), base(n) * (1 + f)]};
 *   <li>none: exactly {@code base(n)} (the default of fixed backoff).
 * </ul>
 * The waiter never sleeps past its deadline: the last delay is cut to the time left, and one
 * last attempt is made at the deadline.
 *
 * <p>Ranges: delays from 1 ms to {@value #MAX_DELAY_MILLIS} ms (1 h); {@code f} in (0, 1].
 */
public final class Backoff {

  /** The longest delay between two attempts: 1 h. */
  public static final long MAX_DELAY_MILLIS = 3_600_000;

  private static final double FULL = -1;

  private final long initialMillis;
  private final long maxMillis;
  private final boolean exponential;
  private final double jitter; // 0: none, FULL: full, else the fraction f of ±f

  private Backoff(long initialMillis, long maxMillis, boolean exponential, double jitter) {
    this.initialMillis = initialMillis;
    this.maxMillis = maxMillis;
    this.exponential = exponential;
    this.jitter = jitter;
  }

  /** The same {@code delay} (1 ms to 1 h) before every retry, without jitter. */
  public static Backoff fixed(Duration delay) {
    long millis = Checks.millis("delay", delay, 1, MAX_DELAY_MILLIS);
    return new Backoff(millis, millis, false, 0);
  }

  /**
   * {@code initial} (1 ms to 1 h) doubling at every retry up to {@code max} ({@code initial} to
   * 1 h), with full jitter.
   */
  public static Backoff exponential(Duration initial, Duration max) {
    long first = Checks.millis("initial", initial, 1, MAX_DELAY_MILLIS);
    long most = Checks.millis("max", max, first, MAX_DELAY_MILLIS);
    return new Backoff(first, most, true, FULL);
  }

  /** The default of {@link LockOptions}: exponential from 10 ms to 1 s, full jitter. */
  public static Backoff defaults() {
    return exponential(Duration.ofMillis(10), Duration.ofSeconds(1));
  }

  /** This backoff with full jitter: each delay uniform in {@code [0, base]}. */
  public Backoff withFullJitter() {
    return new Backoff(initialMillis, maxMillis, exponential, FULL);
  }

  /** This backoff with each delay uniform in {@code base * [1 - fraction, 1 + fraction]}. */
  public Backoff withJitter(double fraction) {
    Checks.finite("fraction", fraction);
    if (!(fraction > 0 && fraction <= 1)) {
      throw new IllegalArgumentException("fraction must be in (0, 1], was " + fraction);
    }
    return new Backoff(initialMillis, maxMillis, exponential, fraction);
  }

  /** This backoff with every delay exactly its base. */
  public Backoff withoutJitter() {
    return new Backoff(initialMillis, maxMillis, exponential, 0);
  }

  /**
   * The delay in ms before retry {@code retry} (0 for the first; any value {@code >= 0}), given
   * {@code uniform}, a random number in {@code [0, 1)}. Deterministic, for tests and for
   * reasoning about a configuration.
   */
  public long delayMillis(int retry, double uniform) {
    Checks.inRange("retry", retry, 0, Integer.MAX_VALUE);
    if (!(uniform >= 0 && uniform < 1)) {
      throw new IllegalArgumentException("uniform must be in [0, 1), was " + uniform);
    }
    long base = maxMillis;
    if (exponential && retry < 62 && initialMillis <= (maxMillis >> retry)) {
      base = initialMillis << retry; // no overflow: initial * 2^retry <= max <= 1 h
    }
    if (jitter == FULL) {
      return (long) (uniform * (base + 1)); // uniform in [0, base]
    }
    if (jitter > 0) {
      return Math.round(base * (1 + jitter * (2 * uniform - 1)));
    }
    return base;
  }

  /** The first delay's base, in ms. */
  public long initialMillis() {
    return initialMillis;
  }

  /** The longest delay's base, in ms (the fixed delay for fixed backoff). */
  public long maxMillis() {
    return maxMillis;
  }

  /** Whether the delay doubles at each retry. */
  public boolean isExponential() {
    return exponential;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Backoff)) {
      return false;
    }
    Backoff that = (Backoff) o;
    return initialMillis == that.initialMillis && maxMillis == that.maxMillis
        && exponential == that.exponential && Double.compare(jitter, that.jitter) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(initialMillis, maxMillis, exponential, jitter);
  }

  @Override
  public String toString() {
    String spread = jitter == FULL ? "full jitter"
        : jitter > 0 ? "jitter ±" + jitter * 100 + "%" : "no jitter";
    return exponential
        ? "exponential(" + Durations.format(initialMillis) + " to " + Durations.format(maxMillis)
            + ", " + spread + ")"
        : "fixed(" + Durations.format(initialMillis) + ", " + spread + ")";
  }
}
