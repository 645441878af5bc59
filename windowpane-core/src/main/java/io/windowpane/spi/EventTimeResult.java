package io.windowpane.spi;

import io.windowpane.Algorithm;
import io.windowpane.WindowSpec;

/**
 * What an engine answers to an event-time add or record ({@code addAtAsync} and
 * {@code recordAtAsync} of {@link CounterStore} and {@link StatsStore}): whether it recorded the
 * events, with the window count including them (counters; 0 for statistics), or refused them as
 * {@link Verdict#LATE late} (for counters with the window count now, without them: a window
 * that drops late events answers it) or {@link Verdict#AHEAD ahead}, recording nothing; and the
 * engine's now at that moment, for the caller's message.
 *
 * <p>Contract for implementors, at the engine's now, read once:
 * <ol>
 *   <li>{@code atMillis > now + maxAheadMillis}: {@link Verdict#AHEAD}.
 *   <li>Otherwise the event's instant is {@code t = min(atMillis, now)}; if the window no longer
 *       holds {@code t}'s pane ({@code t < } {@link #earliestMillis}), {@link Verdict#LATE}.
 *   <li>Otherwise record the events at {@code t}: in {@code t}'s pane, fixed window or log
 *       position, as a failover replay does ({@link Engine#replays()}), atomically, and answer
 *       the window count at now.
 * </ol>
 * Nothing is recorded unless the verdict is {@link Verdict#RECORDED}.
 */
public record EventTimeResult(Verdict verdict, long count, long nowMillis) {

  /** The outcome of one event-time call. */
  public enum Verdict {
    /** Recorded at its own time. */
    RECORDED,
    /** Its pane had left the window: nothing recorded. */
    LATE,
    /** Too far ahead of the engine's clock: nothing recorded. */
    AHEAD
  }

  /** Recorded; {@code count} is the window count including the events. */
  public static EventTimeResult recorded(long count, long nowMillis) {
    return new EventTimeResult(Verdict.RECORDED, count, nowMillis);
  }

  /** Refused as late; {@code count} is the window count now (0 for statistics). */
  public static EventTimeResult late(long count, long nowMillis) {
    return new EventTimeResult(Verdict.LATE, count, nowMillis);
  }

  /** Refused as ahead. */
  public static EventTimeResult ahead(long nowMillis) {
    return new EventTimeResult(Verdict.AHEAD, 0, nowMillis);
  }

  /**
   * The earliest instant whose events window {@code spec} still holds at {@code nowMillis}: the
   * start of the oldest pane in the window ({@code (floor(now / r) - P + 1) * r}); for the log
   * {@code now - W + 1}; for the weighted window the start of the previous fixed window
   * ({@code (floor(now / W) - 1) * W}). Saturates at {@link Long#MIN_VALUE}.
   */
  public static long earliestMillis(WindowSpec spec, long nowMillis) {
    long w = spec.windowMillis();
    if (spec.algorithm() == Algorithm.SLIDING_LOG) {
      return nowMillis - w + 1 > nowMillis ? Long.MIN_VALUE : nowMillis - w + 1;
    }
    long r = spec.resolutionMillis();
    long oldest = Math.floorDiv(nowMillis, r) - (spec.algorithm() == Algorithm.SLIDING_WEIGHTED
        ? 1 : spec.panes() - 1);
    return Math.multiplyHigh(oldest, r) != (oldest * r >> 63) ? Long.MIN_VALUE : oldest * r;
  }

  /**
   * Steps 1 and 2 of the contract for an engine with a Java clock: {@link Verdict#AHEAD} or
   * {@link Verdict#LATE} (its count 0: a counter fills it in) as a result, or null when the event is to be recorded at
   * {@link #instant min(atMillis, now)}.
   */
  public static EventTimeResult judge(WindowSpec spec, long nowMillis, long atMillis,
      long maxAheadMillis) {
    if (atMillis > nowMillis
        && (atMillis - nowMillis > maxAheadMillis || atMillis - nowMillis < 0)) {
      return ahead(nowMillis);
    }
    if (instant(nowMillis, atMillis) < earliestMillis(spec, nowMillis)) {
      return late(0, nowMillis);
    }
    return null;
  }

  /** The instant an event at {@code atMillis} is recorded at: {@code min(atMillis, now)}. */
  public static long instant(long nowMillis, long atMillis) {
    return Math.min(atMillis, nowMillis);
  }
}
