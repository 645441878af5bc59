package io.windowpane.bench.stats;

import java.util.Arrays;

/**
 * The raw-array design's statistics: recomputed from every value of the window on each call, by
 * sorting a copy. Count, min, max and quantiles are exact; the sum is a plain left-to-right
 * {@code double} sum in ascending order (as a hand-written recompute does; windowpane's is
 * compensated, so the two may differ in the last bits). Quantile ranks follow
 * {@link io.windowpane.Summary}: the value of 0-based rank {@code round(q x (count - 1))}.
 * Immutable once made.
 */
public final class RawSummary {

  private static final RawSummary EMPTY = new RawSummary(new double[0], 0);

  private final double[] sorted;
  private final double sum;

  private RawSummary(double[] sorted, double sum) {
    this.sorted = sorted;
    this.sum = sum;
  }

  /** Sorts {@code values} in place (the caller's own copy) and sums them. */
  public static RawSummary recompute(double[] values) {
    if (values.length == 0) {
      return EMPTY;
    }
    Arrays.sort(values);
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return new RawSummary(values, sum);
  }

  public int count() {
    return sorted.length;
  }

  public double sum() {
    return sum;
  }

  /** NaN when empty. */
  public double mean() {
    return sorted.length == 0 ? Double.NaN : sum / sorted.length;
  }

  /** NaN when empty. */
  public double min() {
    return sorted.length == 0 ? Double.NaN : sorted[0];
  }

  /** NaN when empty. */
  public double max() {
    return sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1];
  }

  /** The value of rank {@code round(q x (count - 1))}; NaN when empty. */
  public double quantile(double q) {
    if (!(q >= 0 && q <= 1)) {
      throw new IllegalArgumentException("q must be in [0, 1], was " + q);
    }
    return sorted.length == 0 ? Double.NaN
        : sorted[(int) Math.round(q * (sorted.length - 1))];
  }

  @Override
  public String toString() {
    return "RawSummary[count=" + count() + ", sum=" + sum + ", min=" + min() + ", max=" + max()
        + (sorted.length == 0 ? "" : ", p99=" + quantile(0.99)) + "]";
  }
}
