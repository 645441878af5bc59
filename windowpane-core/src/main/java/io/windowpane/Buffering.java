package io.windowpane;

import io.windowpane.spi.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * Local buffering of a counter's events or a statistics window's values, for hot keys (see
 * docs/leasing.md, "Counters and statistics: buffering"), set on a window's spec:
 * {@link WindowSpec#withBuffering(Buffering)} for a counter,
 * {@link StatsSpec#withBuffering(Buffering)} for a statistics window. Off unless asked for.
 * Immutable; every setter validates at once and returns a new value.
 *
 * <p>With a staleness bound S, this node sends its buffered events to the engine every S/2 (a
 * background thread), so the engine records them at most S/2 plus one engine call late; a
 * counter answers {@code add} and {@code count} from the engine's last answer for the key while
 * that answer is at most S old, plus every event of this node since. A summary first sends this
 * node's buffered values for the key. Events buffered when a flush fails are lost (counted in
 * {@link BufferStats#lostEvents()}), never counted twice.
 */
public final class Buffering {

  /** Shortest {@link #maxStaleness()}: 1 ms. */
  public static final long MIN_STALENESS_MILLIS = 1;

  /** Longest {@link #maxStaleness()}: 1 minute. */
  public static final long MAX_STALENESS_MILLIS = 60_000;

  /** Largest and default {@link #maxPending()}: a statistics store's batch limit. */
  public static final int MAX_PENDING = 10_000;

  private static final MillisClock MONOTONIC = () -> System.nanoTime() / 1_000_000;

  private final long maxStalenessMillis;
  private final int maxPending;
  private final MillisClock clock;

  private Buffering(long maxStalenessMillis, int maxPending, MillisClock clock) {
    this.maxStalenessMillis = maxStalenessMillis;
    this.maxPending = maxPending;
    this.clock = clock;
  }

  /**
   * Buffering with the staleness bound {@code maxStaleness}, 1 ms to 1 minute; at most 10,000
   * pending values per statistics key; this JVM's monotonic clock.
   *
   * @throws IllegalArgumentException if {@code maxStaleness} is null or outside 1 ms to 1 minute
   */
  public static Buffering of(Duration maxStaleness) {
    long millis = Checks.millis("maxStaleness", maxStaleness, MIN_STALENESS_MILLIS,
        MAX_STALENESS_MILLIS);
    return new Buffering(millis, MAX_PENDING, MONOTONIC);
  }

  /**
   * How many values one statistics key buffers before it sends them at once, without waiting
   * for the background flush: 1 to {@value #MAX_PENDING} (default {@value #MAX_PENDING}).
   * Counters buffer a number, not values, and ignore it.
   */
  public Buffering maxPending(int values) {
    Checks.inRange("values", values, 1, MAX_PENDING);
    return new Buffering(maxStalenessMillis, values, clock);
  }

  /**
   * This node's clock for staleness deadlines: it must never step backwards (default: this
   * JVM's {@link System#nanoTime()} in ms). Only tests change it, to the engine's manual clock.
   */
  public Buffering clock(MillisClock clock) {
    return new Buffering(maxStalenessMillis, maxPending, Checks.notNull("clock", clock));
  }

  /** The staleness bound S. */
  public Duration maxStaleness() {
    return Duration.ofMillis(maxStalenessMillis);
  }

  /** {@link #maxStaleness()} in milliseconds. */
  public long maxStalenessMillis() {
    return maxStalenessMillis;
  }

  /** Values per statistics key before an early flush. */
  public int maxPending() {
    return maxPending;
  }

  /** The clock of staleness deadlines on this node. */
  public MillisClock clock() {
    return clock;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Buffering)) {
      return false;
    }
    Buffering that = (Buffering) o;
    return maxStalenessMillis == that.maxStalenessMillis && maxPending == that.maxPending
        && clock == that.clock;
  }

  @Override
  public int hashCode() {
    return Objects.hash(maxStalenessMillis, maxPending);
  }

  @Override
  public String toString() {
    return "Buffering(staleness " + maxStalenessMillis + " ms"
        + (maxPending == MAX_PENDING ? "" : ", pending <= " + maxPending) + ")";
  }
}
