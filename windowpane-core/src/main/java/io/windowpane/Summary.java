package io.windowpane;

import io.windowpane.internal.CompensatedSum;
import java.util.Arrays;
import java.util.Optional;

/**
 * Statistics of one key's window at one moment: count, sum, mean, min, max and quantiles.
 * Immutable.
 *
 * <p><b>Numbers.</b> {@link #count()} is exact. {@link #sum()} is a {@code double} accumulated
 * with compensated (Neumaier) summation per pane and across panes: it is within
 * {@code 2^-50 * (|x1| + ... + |xn|)} of the exact sum of the values in the window (in practice
 * within a few ulps of it). If a running sum passes {@link Double#MAX_VALUE} it becomes infinite
 * (NaN if it overflowed both ways): an overflow shows, it never wraps. {@link #min()} and {@link #max()}
 * are exact. {@link #mean()} is {@code sum() / count()}.
 *
 * <p><b>Quantiles.</b> {@code quantile(q)} estimates the value of 0-based rank
 * {@code round(q * (count - 1))} in ascending order. For a histogram window it is within the
 * {@link #relativeAccuracy()} of that value (for values inside the tracked range of
 * {@link LogBuckets}); {@code quantile(0)} is the min and {@code quantile(1)} the max, exactly.
 * For an exact window it is that value.
 *
 * <p>An empty summary has count 0, sum 0 and NaN for mean, min, max and every quantile.
 */
public final class Summary {

  private final long count;
  private final double sum;
  private final double min;
  private final double max;
  private final LogHistogram histogram; // null for exact summaries
  private final double[] sorted; // null for histogram summaries

  private Summary(long count, double sum, double min, double max, LogHistogram histogram,
      double[] sorted) {
    this.count = count;
    this.sum = sum;
    this.min = min;
    this.max = max;
    this.histogram = histogram;
    this.sorted = sorted;
  }

  /**
   * A summary from a histogram window's merged state; for engine authors. {@code histogram} is
   * taken over (not copied); {@code min} and {@code max} are ignored when {@code count} is 0.
   */
  public static Summary ofHistogram(long count, double sum, double min, double max,
      LogHistogram histogram) {
    if (count < 0) {
      throw new IllegalArgumentException("count must be at least 0, was " + count);
    }
    if (histogram == null) {
      throw new IllegalArgumentException("histogram must not be null");
    }
    boolean empty = count == 0;
    return new Summary(count, empty ? 0 : sum, empty ? Double.NaN : min,
        empty ? Double.NaN : max, histogram, null);
  }

  /** A summary of exactly these values (copied); for engine authors. */
  public static Summary ofValues(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    CompensatedSum sum = new CompensatedSum();
    for (double v : sorted) {
      sum.add(v);
    }
    int n = sorted.length;
    return new Summary(n, sum.value(), n == 0 ? Double.NaN : sorted[0],
        n == 0 ? Double.NaN : sorted[n - 1], null, sorted);
  }

  /** How many values the window holds. */
  public long count() {
    return count;
  }

  /** Whether the window holds no value. */
  public boolean isEmpty() {
    return count == 0;
  }

  /** The sum of the values (see the class comment for its precision); 0 when empty. */
  public double sum() {
    return sum;
  }

  /** {@code sum() / count()}; NaN when empty. */
  public double mean() {
    return count == 0 ? Double.NaN : sum / count;
  }

  /** The smallest value, exactly; NaN when empty. */
  public double min() {
    return min;
  }

  /** The largest value, exactly; NaN when empty. */
  public double max() {
    return max;
  }

  /**
   * The value of 0-based rank {@code round(q * (count - 1))}: exact for an exact window, within
   * {@link #relativeAccuracy()} of it for a histogram window; NaN when empty.
   *
   * @param q a quantile in [0, 1]: 0.5 for the median, 0.99 for p99
   */
  public double quantile(double q) {
    if (!(q >= 0 && q <= 1)) {
      throw new IllegalArgumentException("q must be in [0, 1], was " + q);
    }
    if (sorted != null) {
      return sorted.length == 0 ? Double.NaN : sorted[rank(q, sorted.length)];
    }
    long n = histogram.totalCount();
    if (n == 0) {
      return Double.NaN;
    }
    long rank = rank(q, n);
    if (rank == 0) {
      return min;
    }
    if (rank == n - 1) {
      return max;
    }
    double v = histogram.buckets().value(histogram.keyAtRank(rank));
    return Math.max(min, Math.min(max, v)); // the true value lies in [min, max]: only nearer
  }

  private static int rank(double q, int n) {
    return (int) Math.round(q * (n - 1));
  }

  private static long rank(double q, long n) {
    return Math.round(q * (n - 1));
  }

  /** Whether quantiles are exact (an exact window) rather than from a histogram. */
  public boolean isExact() {
    return histogram == null;
  }

  /** The relative accuracy of {@link #quantile}: 0 for an exact window. */
  public double relativeAccuracy() {
    return histogram == null ? 0 : histogram.buckets().relativeAccuracy();
  }

  /** A copy of the merged histogram, for a histogram window. */
  public Optional<LogHistogram> histogram() {
    return histogram == null ? Optional.empty() : Optional.of(histogram.copy());
  }

  @Override
  public String toString() {
    return "Summary[count=" + count + ", sum=" + sum + ", mean=" + mean() + ", min=" + min
        + ", max=" + max + (count == 0 ? "" : ", p50=" + quantile(0.5) + ", p99="
        + quantile(0.99)) + (isExact() ? ", exact" : "") + "]";
  }
}
