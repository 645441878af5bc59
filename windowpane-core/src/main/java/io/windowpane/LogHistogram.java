package io.windowpane;

import java.util.Arrays;

/*
 * Design note: counts per bucket key in one dense long[] covering only the keys seen so far
 * (from lowKey to lowKey + counts.length - 1), grown by doubling towards the side that needs it.
 * Data spanning three decades at 1% occupies about 350 keys, so the array stays a few KB while
 * lookups stay one subtraction; a sparse map would cost an object per bucket.
 */

/**
 * A mergeable log-bucket histogram: counts per bucket of a {@link LogBuckets} mapping. Quantiles
 * it reports lie within the mapping's relative accuracy of the true value of the same rank, for
 * values inside the tracked range. Not thread-safe: the engines keep their own concurrent
 * structures and build one of these per summary.
 */
public final class LogHistogram {

  private final LogBuckets buckets;
  private long[] counts = new long[0];
  private int lowKey;
  private long total;

  /** An empty histogram over {@code buckets}. */
  public LogHistogram(LogBuckets buckets) {
    if (buckets == null) {
      throw new IllegalArgumentException("buckets must not be null");
    }
    this.buckets = buckets;
  }

  /** Counts one finite value. */
  public void record(double value) {
    add(buckets.key(value), 1);
  }

  /**
   * Adds {@code count} (at least 1) to the bucket {@code key}, which must lie in
   * {@code [-maxKey, maxKey]} of the mapping. Engines use this to rebuild a histogram from stored
   * buckets.
   */
  public void add(int key, long count) {
    if (key < -buckets.maxKey() || key > buckets.maxKey()) {
      throw new IllegalArgumentException("key must be in [" + -buckets.maxKey() + ", "
          + buckets.maxKey() + "], was " + key);
    }
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1, was " + count);
    }
    cover(key);
    counts[key - lowKey] += count;
    total += count;
  }

  /** Adds every count of {@code other}, which must share this histogram's mapping. */
  public void merge(LogHistogram other) {
    if (!buckets.equals(other.buckets)) {
      throw new IllegalArgumentException("cannot merge histograms over " + other.buckets
          + " into one over " + buckets);
    }
    if (other.total == 0) {
      return;
    }
    cover(other.lowKey);
    cover(other.lowKey + other.counts.length - 1);
    for (int i = 0; i < other.counts.length; i++) {
      counts[other.lowKey + i - lowKey] += other.counts[i];
    }
    total += other.total;
  }

  private void cover(int key) {
    int max = buckets.maxKey();
    if (counts.length == 0) {
      int size = Math.min(8, 2 * max + 1);
      counts = new long[size];
      lowKey = Math.max(-max, Math.min(key - size / 2, max - size + 1));
      return;
    }
    int high = lowKey + counts.length - 1;
    if (key >= lowKey && key <= high) {
      return;
    }
    int newLow = lowKey;
    int newHigh = high;
    if (key < lowKey) {
      newLow = Math.max(-max, Math.min(key, lowKey - counts.length));
    } else {
      newHigh = Math.min(max, Math.max(key, high + counts.length));
    }
    long[] grown = new long[newHigh - newLow + 1];
    System.arraycopy(counts, 0, grown, lowKey - newLow, counts.length);
    counts = grown;
    lowKey = newLow;
  }

  /** How many values were counted. */
  public long totalCount() {
    return total;
  }

  /** The count of bucket {@code key}; 0 for keys never seen. */
  public long count(int key) {
    int i = key - lowKey;
    return i >= 0 && i < counts.length ? counts[i] : 0;
  }

  /**
   * The key of the bucket holding the value of 0-based {@code rank} in ascending order
   * ({@code 0 <= rank < totalCount()}).
   */
  public int keyAtRank(long rank) {
    if (rank < 0 || rank >= total) {
      throw new IllegalArgumentException("rank must be in [0, " + (total - 1) + "], was " + rank);
    }
    long seen = 0;
    for (int i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen > rank) {
        return lowKey + i;
      }
    }
    throw new IllegalStateException("counts do not add up to " + total);
  }

  /** Occupied keys in ascending order. */
  public int[] keys() {
    int n = 0;
    for (long c : counts) {
      n += c > 0 ? 1 : 0;
    }
    int[] out = new int[n];
    n = 0;
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] > 0) {
        out[n++] = lowKey + i;
      }
    }
    return out;
  }

  /** The mapping. */
  public LogBuckets buckets() {
    return buckets;
  }

  /** An independent copy. */
  public LogHistogram copy() {
    LogHistogram c = new LogHistogram(buckets);
    c.counts = Arrays.copyOf(counts, counts.length);
    c.lowKey = lowKey;
    c.total = total;
    return c;
  }

  @Override
  public String toString() {
    return "LogHistogram[" + total + " values in " + keys().length + " buckets]";
  }
}
