package io.windowpane;

import io.windowpane.spi.Checks;
import io.windowpane.spi.Durations;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The shape of a sliding window: its length {@code W}, its panes {@code P} (so its resolution
 * {@code r = W / P}) and its {@link Algorithm}. Immutable; validated when built.
 *
 * <p>Ranges: {@code W} from 1 ms to {@value #MAX_WINDOW_MILLIS} ms (366 days), whole
 * milliseconds; {@code P} from 1 to {@value #MAX_PANES} and must divide {@code W}. Only
 * {@link Algorithm#SLIDING_PANES} has more than one pane; the log's resolution is 1 ms and the
 * weighted window's is {@code W} (it keeps two fixed windows of length {@code W}).
 *
 * <p>State for a key disappears at most {@link #expiryMillis() W + r} after its last event.
 *
 * <p>Options are set on the spec, each with a {@code withX(...)} method that returns a new spec
 * (and a {@code withoutX()} to turn it off), like every per-window option of windowpane:
 * <ul>
 *   <li>Top keys: a counter over {@link #withTopKeys(int)} keeps a heavy-hitters sketch of its
 *       keys and answers {@link WindowCounter#top}; off by default (it costs a lock per event
 *       when on).
 *   <li>Buffering: a counter over {@link #withBuffering(Buffering)} buffers this node's events
 *       per key and sends them in batches (docs/leasing.md, "Counters and statistics:
 *       buffering"); off by default.
 *   <li>Event time: {@link #withEventTime(EventTime)} sets how a counter takes events that carry
 *       their own time ({@link WindowCounter#add(String, long, long)}).
 *   <li>Adaptive resolution: {@link #withAdaptive(int)} lets the Redis engine coarsen a panes
 *       window's new panes under memory pressure; off by default.
 * </ul>
 */
public final class WindowSpec {

  /** Longest window: 366 days. */
  public static final long MAX_WINDOW_MILLIS = 366L * 24 * 3600 * 1000;

  /** Most panes in a window. */
  public static final int MAX_PANES = 4096;

  private final long windowMillis;
  private final int panes;
  private final Algorithm algorithm;
  private final int topKeys; // counters per pane of the top-keys sketch; 0: off
  private final Buffering buffering; // null: off
  private final EventTime eventTime; // defaults() unless set by withEventTime
  private final int minPanes; // adaptive: the fewest panes under memory pressure; 0: off

  private WindowSpec(long windowMillis, int panes, Algorithm algorithm) {
    this(windowMillis, panes, algorithm, 0, null, EventTime.defaults(), 0);
  }

  private WindowSpec(long windowMillis, int panes, Algorithm algorithm, int topKeys,
      Buffering buffering, EventTime eventTime, int minPanes) {
    this.eventTime = eventTime;
    this.windowMillis = windowMillis;
    this.panes = panes;
    this.algorithm = algorithm;
    this.topKeys = topKeys;
    this.buffering = buffering;
    this.minPanes = minPanes;
  }

  private WindowSpec with(int topKeys, Buffering buffering, EventTime eventTime) {
    return new WindowSpec(windowMillis, panes, algorithm, topKeys, buffering, eventTime,
        minPanes);
  }

  /**
   * This window, for a counter, with top keys on: {@link WindowCounter#top} ranks the counter's
   * heaviest keys over the window with a Space-Saving sketch of {@code counters} counters per
   * pane (1 to {@value TopKey#MAX_COUNTERS}), each reported count over-counting by at most
   * {@code N / counters} for {@code N} events in the window (see {@link TopKey}). Costs one
   * short lock per event; memory at most panes x stripes (processors, at most 8) x counters
   * entries. A limiter sets it on its {@link Quota#withTopKeys quota}, not on a limit's window;
   * engines that cannot rank keys ignore it (top answers empty).
   */
  public WindowSpec withTopKeys(int counters) {
    Checks.inRange("counters", counters, 1, TopKey.MAX_COUNTERS);
    return with(counters, buffering, eventTime);
  }

  /** {@link #withTopKeys(int)} with {@value TopKey#DEFAULT_COUNTERS} counters. */
  public WindowSpec withTopKeys() {
    return withTopKeys(TopKey.DEFAULT_COUNTERS);
  }

  /** Counters per pane of the top-keys sketch; 0 when top keys are off (the default). */
  public int topKeys() {
    return topKeys;
  }

  /** This window with top keys off. */
  public WindowSpec withoutTopKeys() {
    return topKeys == 0 ? this : with(0, buffering, eventTime);
  }

  /**
   * This window, for a counter, with buffering on: a counter over it buffers this node's events
   * per key and sends them to the engine in batches, answering from the engine's last count
   * while it is at most {@link Buffering#maxStaleness()} old (see {@link Buffering} and
   * docs/leasing.md, "Counters and statistics: buffering"). The engine's store sees the window
   * without it. A limiter's hot keys take {@link Quota#withLeasing leasing} instead: a limit's
   * window with buffering is refused by {@link Quota#of}.
   *
   * @throws IllegalArgumentException if {@code buffering} is null
   */
  public WindowSpec withBuffering(Buffering buffering) {
    Checks.notNull("buffering", buffering);
    return with(topKeys, buffering, eventTime);
  }

  /** This window with buffering off (the default). */
  public WindowSpec withoutBuffering() {
    return buffering == null ? this : with(topKeys, null, eventTime);
  }

  /** The buffering options; empty when buffering is off (the default). */
  public Optional<Buffering> buffering() {
    return Optional.ofNullable(buffering);
  }

  /**
   * This window with other {@link EventTime} rules for events that carry their own time
   * ({@link WindowCounter#add(String, long, long)}): how far ahead of the engine's clock they
   * may be, and whether late ones are refused (the default) or dropped and counted.
   */
  public WindowSpec withEventTime(EventTime rules) {
    Checks.notNull("rules", rules);
    return with(topKeys, buffering, rules);
  }

  /** The rules for events that carry their own time; {@link EventTime#defaults()} unless set. */
  public EventTime eventTime() {
    return eventTime;
  }

  /**
   * This {@link Algorithm#SLIDING_PANES} window, adaptive: under memory pressure the Redis
   * engine writes a key's new panes at a coarser resolution, {@code P}, {@code P/2},
   * {@code P/4} ... down to {@code minPanes} panes, so the key's memory shrinks; it steps back
   * to {@code P} panes, one level per window length, when the pressure ends (docs/window-model.md,
   * "Adaptive windows"). The resolution in force is stored with the key, so every node reads it
   * alike. The price: at {@code k} times the resolution a window sees between {@code W - k r}
   * and {@code W} of history (undercount only, never an event older than {@code W}); for one
   * window length after a step back, the coarser level's bound. A key's state then lives up to
   * {@code W + k r} after its last event (its own resolution), never less: what shrinks is the
   * number of panes a key holds, at once at each step. Steps are taken by writes, at most one
   * per window length per key.
   *
   * <p>Engines without a memory-pressure signal (local, etcd) keep the declared {@code P} panes.
   * A limit opts in the same way: a {@link Limit} over an adaptive window; limits over other
   * windows keep their panes.
   *
   * @param minPanes the fewest panes: {@code P / 2^i} for some {@code i >= 0} (each level a
   *     whole number of panes; {@code minPanes == P} declares the option without ever coarsening)
   * @throws IllegalArgumentException if this is not a panes window, or {@code minPanes} is not
   *     one of the allowed values (the message lists them)
   */
  public WindowSpec withAdaptive(int minPanes) {
    if (algorithm != Algorithm.SLIDING_PANES) {
      throw new IllegalArgumentException("adaptive applies to SLIDING_PANES windows only; this is "
          + algorithm);
    }
    Checks.inRange("minPanes", minPanes, 1, panes);
    StringBuilder allowed = new StringBuilder();
    for (int level = panes; ; level /= 2) {
      if (level == minPanes) {
        return new WindowSpec(windowMillis, panes, algorithm, topKeys, buffering, eventTime,
            minPanes);
      }
      allowed.append(allowed.length() == 0 ? "" : ", ").append(level);
      if (level % 2 != 0) {
        break;
      }
    }
    throw new IllegalArgumentException("minPanes must be " + panes + " halved zero or more times"
        + " (one of " + allowed + "), was " + minPanes);
  }

  /** This window with adaptive resolution off (the default). */
  public WindowSpec withoutAdaptive() {
    return minPanes == 0 ? this : new WindowSpec(windowMillis, panes, algorithm, topKeys,
        buffering, eventTime, 0);
  }

  /**
   * The fewest panes an adaptive window coarsens to ({@link #withAdaptive}); empty when the
   * window is not adaptive (the default).
   */
  public OptionalInt adaptiveMinPanes() {
    return minPanes == 0 ? OptionalInt.empty() : OptionalInt.of(minPanes);
  }


  /** A {@link Algorithm#SLIDING_PANES} window of {@code length} cut into {@code panes} panes. */
  public static WindowSpec panes(Duration length, int panes) {
    long w = windowMillis(length);
    Checks.inRange("panes", panes, 1, MAX_PANES);
    if (w % panes != 0) {
      throw new IllegalArgumentException("panes must divide the window length (" + w
          + " ms) into whole milliseconds, was " + panes);
    }
    return new WindowSpec(w, panes, Algorithm.SLIDING_PANES);
  }

  /** An exact {@link Algorithm#SLIDING_LOG} window of {@code length}. */
  public static WindowSpec log(Duration length) {
    return new WindowSpec(windowMillis(length), 1, Algorithm.SLIDING_LOG);
  }

  /** A {@link Algorithm#SLIDING_WEIGHTED} window of {@code length}. */
  public static WindowSpec weighted(Duration length) {
    return new WindowSpec(windowMillis(length), 1, Algorithm.SLIDING_WEIGHTED);
  }

  /**
   * A window of any algorithm; {@code panes} must be 1 unless the algorithm is
   * {@link Algorithm#SLIDING_PANES}.
   */
  public static WindowSpec of(Duration length, int panes, Algorithm algorithm) {
    Checks.notNull("algorithm", algorithm);
    if (algorithm == Algorithm.SLIDING_PANES) {
      return panes(length, panes);
    }
    Checks.inRange("panes", panes, 1, 1);
    return algorithm == Algorithm.SLIDING_LOG ? log(length) : weighted(length);
  }

  private static long windowMillis(Duration length) {
    Checks.notNull("length", length);
    if (length.isNegative() || length.isZero() || length.compareTo(Duration.ofMillis(MAX_WINDOW_MILLIS)) > 0) {
      throw new IllegalArgumentException("length must be in [1 ms, " + MAX_WINDOW_MILLIS
          + " ms (366 days)], was " + length);
    }
    if (length.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException("length must be whole milliseconds, was " + length);
    }
    return length.toMillis();
  }

  /** The window length {@code W} in milliseconds. */
  public long windowMillis() {
    return windowMillis;
  }

  /** The window length {@code W}. */
  public Duration length() {
    return Duration.ofMillis(windowMillis);
  }

  /** The number of panes {@code P} (1 for the log and the weighted window). */
  public int panes() {
    return panes;
  }

  /**
   * The resolution {@code r} in milliseconds: {@code W / P} for panes, 1 for the log, {@code W}
   * for the weighted window.
   */
  public long resolutionMillis() {
    switch (algorithm) {
      case SLIDING_LOG:
        return 1;
      case SLIDING_WEIGHTED:
        return windowMillis;
      default:
        return windowMillis / panes;
    }
  }

  /** {@code W + r}: how long state for a key may outlive its last event. */
  public long expiryMillis() {
    return windowMillis + resolutionMillis();
  }

  /** The algorithm. */
  public Algorithm algorithm() {
    return algorithm;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof WindowSpec)) {
      return false;
    }
    WindowSpec that = (WindowSpec) o;
    return windowMillis == that.windowMillis && panes == that.panes && algorithm == that.algorithm
        && topKeys == that.topKeys && Objects.equals(buffering, that.buffering)
        && eventTime.equals(that.eventTime) && minPanes == that.minPanes;
  }

  @Override
  public int hashCode() {
    int h = topKeys == 0 ? Objects.hash(windowMillis, panes, algorithm)
        : Objects.hash(windowMillis, panes, algorithm, topKeys);
    h = minPanes == 0 ? h : 31 * h + minPanes;
    return buffering == null ? h : 31 * h + buffering.hashCode();
  }

  @Override
  public String toString() {
    return algorithm + "(" + Durations.format(windowMillis)
        + (algorithm == Algorithm.SLIDING_PANES ? " / " + panes + " panes" : "")
        + (topKeys == 0 ? "" : ", top keys " + topKeys)
        + (minPanes == 0 ? "" : ", adaptive to " + minPanes + " panes")
        + (buffering == null ? "" : ", " + buffering)
        + (eventTime.equals(EventTime.defaults()) ? "" : ", " + eventTime) + ")";
  }
}
