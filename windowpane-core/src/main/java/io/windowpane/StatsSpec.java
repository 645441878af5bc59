package io.windowpane;

import io.windowpane.spi.Checks;
import io.windowpane.spi.Durations;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The shape of a statistics window: a histogram window over sliding panes (the default kind:
 * bounded memory, quantiles within a stated relative accuracy), or an exact window that keeps
 * every value (exact quantiles, memory in proportion to the values). Immutable; validated when
 * built.
 *
 * <pre>{@code
 * StatsSpec.histogram(Duration.ofMinutes(1), 12)          // 1 min in 5 s panes, 1% accuracy
 *     .withRelativeAccuracy(0.005)                        // 0.5%
 *     .withTrackedRange(1e-3, 1e9);                       // magnitudes kept to that accuracy
 * StatsSpec.exact(Duration.ofSeconds(10)).withMaxValues(5_000);
 * }</pre>
 *
 * <p><b>Histogram windows</b> ({@link Algorithm#SLIDING_PANES}) keep, per pane, the count, the
 * compensated sum, min, max and one counter per occupied bucket of {@link #buckets()}; a summary
 * merges the live panes. Like a pane counter, the window sees between {@code W - r} and
 * {@code W} of history. Memory per key is {@code O(P x occupied buckets)}, never more than
 * {@code P x (2 * span + 1)} buckets.
 *
 * <p><b>Exact windows</b> ({@link Algorithm#SLIDING_LOG}) keep every value recorded in
 * {@code (t - W, t]}, at most {@link #maxValues()} of them (a record that would pass the bound
 * fails with {@link WindowpaneException} and records nothing). Cost: about 56 bytes per value in
 * the local engine and about 118 in Redis (measured), and a summary moves every value.
 *
 * <p>Options are set on the spec with {@code withX(...)} methods that return a new spec, as on
 * {@link WindowSpec}: {@link #withTopKeys(int)}, {@link #withAdaptive(int)} (coarser panes under
 * Redis memory pressure), {@link #withBuffering(Buffering)} (this node's
 * values buffered per key and sent in batches; docs/leasing.md, "Counters and statistics:
 * buffering"), and the kind's own {@link #withRelativeAccuracy}, {@link #withTrackedRange},
 * {@link #withMaxValues}.
 */
public final class StatsSpec {

  /** Default bound on the values an exact window holds per key. */
  public static final int DEFAULT_MAX_VALUES = 100_000;

  /** Largest bound on the values an exact window holds per key. */
  public static final int MAX_VALUES = 1_000_000;

  private final WindowSpec window;
  private final LogBuckets buckets; // null for exact windows
  private final int maxValues; // 0 for histogram windows
  private final int topKeys; // 0: off
  private final Buffering buffering; // null: off

  private StatsSpec(WindowSpec window, LogBuckets buckets, int maxValues) {
    this(window, buckets, maxValues, 0, null);
  }

  private StatsSpec(WindowSpec window, LogBuckets buckets, int maxValues, int topKeys,
      Buffering buffering) {
    this.window = window;
    this.buckets = buckets;
    this.maxValues = maxValues;
    this.topKeys = topKeys;
    this.buffering = buffering;
  }

  /**
   * This window with top keys on: {@link WindowStats#top} ranks the keys that recorded the most
   * values over the window (each value counts 1), with a Space-Saving sketch of
   * {@code counters} counters per pane (1 to {@value TopKey#MAX_COUNTERS}); see
   * {@link WindowSpec#withTopKeys(int)} for the bound and the cost. Off by default.
   */
  public StatsSpec withTopKeys(int counters) {
    Checks.inRange("counters", counters, 1, TopKey.MAX_COUNTERS);
    return new StatsSpec(window, buckets, maxValues, counters, buffering);
  }

  /** {@link #withTopKeys(int)} with {@value TopKey#DEFAULT_COUNTERS} counters. */
  public StatsSpec withTopKeys() {
    return withTopKeys(TopKey.DEFAULT_COUNTERS);
  }

  /** Counters per pane of the top-keys sketch; 0 when top keys are off (the default). */
  public int topKeys() {
    return topKeys;
  }

  /**
   * This window with other {@link EventTime} rules for values that carry their own time
   * ({@link WindowStats#record(String, double, long)}); see {@link WindowSpec#withEventTime}.
   */
  public StatsSpec withEventTime(EventTime rules) {
    return new StatsSpec(window.withEventTime(rules), buckets, maxValues, topKeys, buffering);
  }

  /** The rules for values that carry their own time; {@link EventTime#defaults()} unless set. */
  public EventTime eventTime() {
    return window.eventTime();
  }

  /**
   * This histogram window, adaptive: under memory pressure the Redis engine writes a key's new
   * panes at a coarser resolution, down to {@code minPanes} panes, and steps back when the
   * pressure ends; see {@link WindowSpec#withAdaptive(int)} for the rule, the allowed values and
   * the error. Quantiles keep their relative accuracy over the values the window sees; its edge
   * is coarser the same way as a counter's. Engines without a memory-pressure signal (local,
   * etcd) keep the declared panes.
   *
   * @throws IllegalArgumentException for an exact window, or a {@code minPanes} that is not
   *     {@code P / 2^i}
   */
  public StatsSpec withAdaptive(int minPanes) {
    if (buckets == null) {
      throw new IllegalArgumentException("adaptive applies to histogram windows only (SLIDING_PANES);"
          + " this is an exact window (SLIDING_LOG)");
    }
    return new StatsSpec(window.withAdaptive(minPanes), buckets, 0, topKeys, buffering);
  }

  /** This window with adaptive resolution off (the default). */
  public StatsSpec withoutAdaptive() {
    return window.adaptiveMinPanes().isEmpty() ? this
        : new StatsSpec(window.withoutAdaptive(), buckets, maxValues, topKeys, buffering);
  }

  /**
   * This window with buffering on: a statistics window over it buffers this node's values per
   * key and sends them in batches (up to {@link Buffering#maxPending()} values per key before an
   * early send); a summary first sends this node's values for the key (see {@link Buffering} and
   * docs/leasing.md, "Counters and statistics: buffering"). The engine's store sees the window
   * without it.
   *
   * @throws IllegalArgumentException if {@code buffering} is null
   */
  public StatsSpec withBuffering(Buffering buffering) {
    Checks.notNull("buffering", buffering);
    return new StatsSpec(window, buckets, maxValues, topKeys, buffering);
  }

  /** This window with buffering off (the default). */
  public StatsSpec withoutBuffering() {
    return buffering == null ? this : new StatsSpec(window, buckets, maxValues, topKeys, null);
  }

  /** The buffering options; empty when buffering is off (the default). */
  public Optional<Buffering> buffering() {
    return Optional.ofNullable(buffering);
  }

  /**
   * A histogram window of {@code length} in {@code panes} panes (as in
   * {@link WindowSpec#panes}), 1% relative accuracy over magnitudes 1e-9 to 1e15.
   */
  public static StatsSpec histogram(Duration length, int panes) {
    return new StatsSpec(WindowSpec.panes(length, panes), LogBuckets.defaults(), 0);
  }

  /** An exact window of {@code length} holding at most {@value #DEFAULT_MAX_VALUES} values. */
  public static StatsSpec exact(Duration length) {
    return new StatsSpec(WindowSpec.log(length), null, DEFAULT_MAX_VALUES);
  }

  /** This histogram window with another relative accuracy (see {@link LogBuckets#of}). */
  public StatsSpec withRelativeAccuracy(double relativeAccuracy) {
    requireHistogram("relativeAccuracy");
    return new StatsSpec(window, LogBuckets.of(relativeAccuracy, buckets.minMagnitude(),
        buckets.maxMagnitude()), 0, topKeys, buffering);
  }

  /**
   * This histogram window with another tracked range of magnitudes (see {@link LogBuckets#of}):
   * values whose magnitude lies outside it are counted, summed and bounded exactly, but their
   * quantile estimates collapse to the range's ends.
   */
  public StatsSpec withTrackedRange(double minMagnitude, double maxMagnitude) {
    requireHistogram("trackedRange");
    return new StatsSpec(window, LogBuckets.of(buckets.relativeAccuracy(), minMagnitude,
        maxMagnitude), 0, topKeys, buffering);
  }

  /** This exact window with another bound on its values per key (1 to {@value #MAX_VALUES}). */
  public StatsSpec withMaxValues(int maxValues) {
    if (buckets != null) {
      throw new IllegalArgumentException("maxValues applies to exact windows only; this is "
          + this);
    }
    return new StatsSpec(window, null, (int) Checks.inRange("maxValues", maxValues, 1,
        MAX_VALUES), topKeys, buffering);
  }

  private void requireHistogram(String argument) {
    if (buckets == null) {
      throw new IllegalArgumentException(argument + " applies to histogram windows only; this is "
          + this);
    }
  }

  /** The window: {@code SLIDING_PANES} for a histogram, {@code SLIDING_LOG} for exact. */
  public WindowSpec window() {
    return window;
  }

  /** Whether the window keeps every value. */
  public boolean isExact() {
    return buckets == null;
  }

  /** The bucket mapping of a histogram window; null for an exact window. */
  public LogBuckets buckets() {
    return buckets;
  }

  /** The bound on values per key of an exact window; 0 for a histogram window. */
  public int maxValues() {
    return maxValues;
  }

  /** {@code W + r}: how long state for a key may outlive its last value. */
  public long expiryMillis() {
    return window.expiryMillis();
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof StatsSpec)) {
      return false;
    }
    StatsSpec that = (StatsSpec) o;
    return window.equals(that.window) && Objects.equals(buckets, that.buckets)
        && maxValues == that.maxValues && topKeys == that.topKeys
        && Objects.equals(buffering, that.buffering);
  }

  @Override
  public int hashCode() {
    int h = topKeys == 0 ? Objects.hash(window, buckets, maxValues)
        : Objects.hash(window, buckets, maxValues, topKeys);
    return buffering == null ? h : 31 * h + buffering.hashCode();
  }

  @Override
  public String toString() {
    return describe() + (topKeys == 0 ? "" : " with top keys " + topKeys)
        + (eventTime().equals(EventTime.defaults()) ? "" : " with " + eventTime())
        + (window.adaptiveMinPanes().isPresent()
            ? " adaptive to " + window.adaptiveMinPanes().getAsInt() + " panes" : "")
        + (buffering == null ? "" : " with " + buffering);
  }

  private String describe() {
    return buckets == null
        ? "exact(" + Durations.format(window.windowMillis()) + ", max " + maxValues + " values)"
        : "histogram(" + Durations.format(window.windowMillis()) + " / " + window.panes()
            + " panes, " + buckets.relativeAccuracy() * 100 + "% over ["
            + buckets.minMagnitude() + ", " + buckets.maxMagnitude() + "])";
  }
}
