package io.windowpane;

import java.util.Objects;

/*
 * Design note: the bucket mapping of windowpane's histograms.
 *
 * Logarithmic buckets with relative accuracy a, as in DDSketch (Masson, Rim and Lee, "DDSketch:
 * a fast and fully-mergeable quantile sketch with relative-error guarantees", VLDB 2019). With
 * g = (1 + a) / (1 - a), a magnitude m falls in bucket i = ceil(ln m / ln g), which covers
 * (g^(i-1), g^i]; the bucket reports 2 g^i / (g + 1), within a relative a of every magnitude in
 * it. Two histograms with the same mapping merge by adding counts bucket by bucket, which is what
 * lets panes (and Redis keys, and nodes) merge without moving raw values.
 *
 * Why this over HdrHistogram-style linear sub-buckets or t-digest: the error is relative and
 * stated per value (not per rank), merging is exact and associative, and a bucket is one integer
 * key that a Redis hash field or an array slot can hold. Keys are one signed integer ordered like
 * the values, so a quantile is a walk over keys in order:
 *
 *   key(0.0) = key(-0.0) = 0
 *   key(v)   = sign(v) * (clamp(ceil(ln|v| / ln g), iMin, iMax) - iMin + 1)      for v != 0
 *
 * where iMin and iMax are the bucket indexes of the tracked range's ends. Magnitudes below the
 * range collapse into the first bucket of their sign and magnitudes above it into the last: the
 * number of buckets stays bounded (2 * span + 1) whatever the data, and only values outside the
 * range lose the accuracy guarantee. The same formula runs in the Redis function library.
 */

/**
 * How values map to histogram buckets: the relative accuracy and the tracked range of
 * magnitudes. Immutable and thread-safe; obtained from {@link StatsSpec#buckets()}.
 *
 * <p><b>Guarantee.</b> A value {@code v} with {@code minMagnitude <= |v| <= maxMagnitude} falls in
 * a bucket whose reported value lies within {@code relativeAccuracy * |v|} of {@code v} (up to
 * floating-point rounding in the logarithm, below 1e-12 relative). Zero (and {@code -0.0}) has
 * its own bucket and is reported exactly. Nonzero magnitudes below {@code minMagnitude} are
 * reported as about {@code minMagnitude}, magnitudes above {@code maxMagnitude} as about
 * {@code maxMagnitude}: the collapse policy that keeps the bucket count bounded.
 */
public final class LogBuckets {

  /** Default relative accuracy: 1%. */
  public static final double DEFAULT_RELATIVE_ACCURACY = 0.01;

  /** Finest relative accuracy accepted. */
  public static final double MIN_RELATIVE_ACCURACY = 0.001;

  /** Coarsest relative accuracy accepted. */
  public static final double MAX_RELATIVE_ACCURACY = 0.2;

  /** Default smallest tracked magnitude. */
  public static final double DEFAULT_MIN_MAGNITUDE = 1e-9;

  /** Default largest tracked magnitude. */
  public static final double DEFAULT_MAX_MAGNITUDE = 1e15;

  /** Most buckets a mapping may have, zero included: bounds the memory of one pane. */
  public static final int MAX_BUCKETS = 1 << 18; // 262,144

  private final double relativeAccuracy;
  private final double minMagnitude;
  private final double maxMagnitude;
  private final double gamma;
  private final double lnGamma;
  private final int minIndex;
  private final int span;

  private LogBuckets(double relativeAccuracy, double minMagnitude, double maxMagnitude) {
    this.relativeAccuracy = relativeAccuracy;
    this.minMagnitude = minMagnitude;
    this.maxMagnitude = maxMagnitude;
    this.gamma = (1 + relativeAccuracy) / (1 - relativeAccuracy);
    this.lnGamma = Math.log(gamma);
    this.minIndex = index(minMagnitude);
    this.span = index(maxMagnitude) - minIndex + 1;
  }

  /**
   * A mapping with {@code relativeAccuracy} in [{@value #MIN_RELATIVE_ACCURACY},
   * {@value #MAX_RELATIVE_ACCURACY}] over magnitudes {@code [minMagnitude, maxMagnitude]}, where
   * {@code Double.MIN_NORMAL <= minMagnitude < maxMagnitude <= Double.MAX_VALUE} and the mapping
   * has at most {@value #MAX_BUCKETS} buckets.
   */
  public static LogBuckets of(double relativeAccuracy, double minMagnitude, double maxMagnitude) {
    if (!(relativeAccuracy >= MIN_RELATIVE_ACCURACY && relativeAccuracy <= MAX_RELATIVE_ACCURACY)) {
      throw new IllegalArgumentException("relativeAccuracy must be in [" + MIN_RELATIVE_ACCURACY
          + ", " + MAX_RELATIVE_ACCURACY + "], was " + relativeAccuracy);
    }
    if (!(minMagnitude >= Double.MIN_NORMAL && minMagnitude < maxMagnitude
        && maxMagnitude <= Double.MAX_VALUE)) {
      throw new IllegalArgumentException("tracked range must satisfy " + Double.MIN_NORMAL
          + " <= minMagnitude < maxMagnitude <= " + Double.MAX_VALUE + ", was [" + minMagnitude
          + ", " + maxMagnitude + "]");
    }
    LogBuckets made = new LogBuckets(relativeAccuracy, minMagnitude, maxMagnitude);
    if (2L * made.span + 1 > MAX_BUCKETS) {
      throw new IllegalArgumentException("relativeAccuracy " + relativeAccuracy
          + " over [" + minMagnitude + ", " + maxMagnitude + "] needs " + (2L * made.span + 1)
          + " buckets; at most " + MAX_BUCKETS + " are allowed: coarsen the accuracy or narrow"
          + " the range");
    }
    return made;
  }

  /** The default mapping: 1% over [1e-9, 1e15]. */
  public static LogBuckets defaults() {
    return of(DEFAULT_RELATIVE_ACCURACY, DEFAULT_MIN_MAGNITUDE, DEFAULT_MAX_MAGNITUDE);
  }

  private int index(double magnitude) {
    return (int) Math.ceil(Math.log(magnitude) / lnGamma);
  }

  /** The bucket key of a finite {@code value}: 0 for zero, in [-maxKey, maxKey] otherwise. */
  public int key(double value) {
    if (value == 0) {
      return 0;
    }
    double magnitude = Math.abs(value);
    int k;
    if (magnitude <= minMagnitude) {
      k = 1;
    } else if (magnitude >= maxMagnitude) {
      k = span;
    } else {
      k = Math.max(1, Math.min(span, index(magnitude) - minIndex + 1));
    }
    return value > 0 ? k : -k;
  }

  /** The value a bucket reports: 0 for key 0, else {@code +-2 g^i / (g + 1)}. */
  public double value(int key) {
    if (key == 0) {
      return 0;
    }
    int i = Math.abs(key) - 1 + minIndex;
    double v = 2 * Math.pow(gamma, i) / (gamma + 1);
    return key > 0 ? v : -v;
  }

  /**
   * The bucket index of {@code minMagnitude}, {@code ceil(ln(minMagnitude) / ln g)}: key {@code k}
   * (for {@code k > 0}) is bucket index {@code k - 1 + minIndex()}. Part of the Redis protocol.
   */
  public int minIndex() {
    return minIndex;
  }

  /** The largest key; keys run from {@code -maxKey()} to {@code maxKey()}. */
  public int maxKey() {
    return span;
  }

  /** The relative accuracy {@code a}. */
  public double relativeAccuracy() {
    return relativeAccuracy;
  }

  /** The smallest magnitude tracked with the stated accuracy. */
  public double minMagnitude() {
    return minMagnitude;
  }

  /** The largest magnitude tracked with the stated accuracy. */
  public double maxMagnitude() {
    return maxMagnitude;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof LogBuckets)) {
      return false;
    }
    LogBuckets that = (LogBuckets) o;
    return relativeAccuracy == that.relativeAccuracy && minMagnitude == that.minMagnitude
        && maxMagnitude == that.maxMagnitude;
  }

  @Override
  public int hashCode() {
    return Objects.hash(relativeAccuracy, minMagnitude, maxMagnitude);
  }

  @Override
  public String toString() {
    return "LogBuckets[" + relativeAccuracy * 100 + "% over [" + minMagnitude + ", "
        + maxMagnitude + "], " + (2 * span + 1) + " buckets]";
  }
}
