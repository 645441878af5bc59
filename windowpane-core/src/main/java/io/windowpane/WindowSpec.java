package io.windowpane;

import io.windowpane.internal.Checks;
import io.windowpane.internal.Durations;
import java.time.Duration;
import java.util.Objects;

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
 * <p>Top keys: a counter over {@link #withTopKeys(int)} keeps a heavy-hitters sketch of its keys
 * and answers {@link WindowCounter#top}; off by default (it costs a lock per event when on).
 *
 * <p>Event time: {@link #withEventTime(EventTime)} sets how a counter takes events that carry
 * their own time ({@link WindowCounter#add(String, long, long)}).
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
  private final EventTime eventTime; // defaults() unless set by withEventTime

  private WindowSpec(long windowMillis, int panes, Algorithm algorithm) {
    this(windowMillis, panes, algorithm, 0);
  }

  private WindowSpec(long windowMillis, int panes, Algorithm algorithm, int topKeys) {
    this(windowMillis, panes, algorithm, topKeys, EventTime.defaults());
  }

  private WindowSpec(long windowMillis, int panes, Algorithm algorithm, int topKeys,
      EventTime eventTime) {
    this.eventTime = eventTime;
    this.windowMillis = windowMillis;
    this.panes = panes;
    this.algorithm = algorithm;
    this.topKeys = topKeys;
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
    return new WindowSpec(windowMillis, panes, algorithm, counters, eventTime);
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
    return topKeys == 0 ? this
        : new WindowSpec(windowMillis, panes, algorithm, 0, eventTime);
  }

  /**
   * This window with other {@link EventTime} rules for events that carry their own time
   * ({@link WindowCounter#add(String, long, long)}): how far ahead of the engine's clock they
   * may be, and whether late ones are refused (the default) or dropped and counted.
   */
  public WindowSpec withEventTime(EventTime rules) {
    Checks.notNull("rules", rules);
    return new WindowSpec(windowMillis, panes, algorithm, topKeys, rules);
  }

  /** The rules for events that carry their own time; {@link EventTime#defaults()} unless set. */
  public EventTime eventTime() {
    return eventTime;
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
        && topKeys == that.topKeys && eventTime.equals(that.eventTime);
  }

  @Override
  public int hashCode() {
    return topKeys == 0 ? Objects.hash(windowMillis, panes, algorithm)
        : Objects.hash(windowMillis, panes, algorithm, topKeys);
  }

  @Override
  public String toString() {
    return algorithm + "(" + Durations.format(windowMillis)
        + (algorithm == Algorithm.SLIDING_PANES ? " / " + panes + " panes" : "")
        + (topKeys == 0 ? "" : ", top keys " + topKeys)
        + (eventTime.equals(EventTime.defaults()) ? "" : ", " + eventTime) + ")";
  }
}
