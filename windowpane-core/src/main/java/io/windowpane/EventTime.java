package io.windowpane;

import io.windowpane.spi.Checks;
import java.time.Duration;

/**
 * How a window takes events that carry their own time ({@link WindowCounter#add(String, long,
 * long)}, {@link WindowStats#record(String, double, long)} and their batch and async forms):
 * events from a stream, which arrive late and out of order. Immutable; set per window with
 * {@link WindowSpec#withEventTime} or {@link StatsSpec#withEventTime}.
 *
 * <p>An event at {@code atMillis} is judged against the engine's clock at the moment it is
 * applied ({@code now}: the server's for Redis, the client's for etcd and the local engine):
 * <ul>
 *   <li><b>Ahead</b>: {@code atMillis > now + maxAhead} is refused with
 *       {@link EventTimeException}, nothing recorded. Within {@code maxAhead} it is taken as
 *       {@code now} (a producer's clock a little ahead of the engine's).
 *   <li><b>Late</b>: an event whose pane (for the log: its instant; for a weighted window: its
 *       fixed window) has left the window at {@code now} would not be counted had it arrived in
 *       order, so it cannot be counted now. It is refused with {@link EventTimeException} (the
 *       default), or, with {@link #droppingLate()}, dropped and counted in the window's
 *       {@code lateEventsDropped()}. The bound per algorithm is in docs/window-model.md; no
 *       event younger than {@code W - r} is ever late, and none older than {@code W + r} is ever
 *       taken.
 *   <li>Otherwise the event lands where it would have landed in order: the pane, fixed window or
 *       log position of {@code min(atMillis, now)}, so counts and summaries are what they would
 *       have been had the events arrived in order (within each algorithm's own error).
 * </ul>
 */
public final class EventTime {

  /** Default {@link #maxAheadMillis()}: 1 s. */
  public static final long DEFAULT_MAX_AHEAD_MILLIS = 1_000;

  /** Largest {@link #maxAheadMillis()}: 1 hour. */
  public static final long MAX_AHEAD_MILLIS = 3_600_000;

  private static final EventTime DEFAULTS = new EventTime(DEFAULT_MAX_AHEAD_MILLIS, false);

  private final long maxAheadMillis;
  private final boolean dropLate;

  private EventTime(long maxAheadMillis, boolean dropLate) {
    this.maxAheadMillis = maxAheadMillis;
    this.dropLate = dropLate;
  }

  /** Ahead by at most 1 s, late events refused. */
  public static EventTime defaults() {
    return DEFAULTS;
  }

  /**
   * These rules with another bound on how far ahead of the engine's clock an event may be: 0 to
   * 1 hour, whole milliseconds.
   */
  public EventTime withMaxAhead(Duration maxAhead) {
    Checks.notNull("maxAhead", maxAhead);
    if (maxAhead.isNegative() || maxAhead.compareTo(Duration.ofMillis(MAX_AHEAD_MILLIS)) > 0
        || maxAhead.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException("maxAhead must be whole milliseconds in [0 ms, "
          + MAX_AHEAD_MILLIS + " ms (1 h)], was " + maxAhead);
    }
    return new EventTime(maxAhead.toMillis(), dropLate);
  }

  /** These rules with late events dropped and counted instead of refused. */
  public EventTime droppingLate() {
    return new EventTime(maxAheadMillis, true);
  }

  /** These rules with late events refused with {@link EventTimeException} (the default). */
  public EventTime refusingLate() {
    return new EventTime(maxAheadMillis, false);
  }

  /** How far ahead of the engine's clock an event may be, in ms. */
  public long maxAheadMillis() {
    return maxAheadMillis;
  }

  /** Whether late events are dropped (and counted) rather than refused. */
  public boolean dropsLate() {
    return dropLate;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EventTime e && e.maxAheadMillis == maxAheadMillis
        && e.dropLate == dropLate;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(maxAheadMillis) * 31 + (dropLate ? 1 : 0);
  }

  @Override
  public String toString() {
    return "EventTime[maxAhead " + maxAheadMillis + " ms, late "
        + (dropLate ? "dropped" : "refused") + "]";
  }
}
