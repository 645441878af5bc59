package io.windowpane.internal.local;

import io.windowpane.LogBuckets;
import io.windowpane.LogHistogram;
import io.windowpane.internal.CompensatedSum;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/*
 * Design note: one stripe of a histogram pane (see StatsPane), written by many threads
 * without locks.
 *
 * Every field is updated by its own atomic step: count by getAndAdd, min and max by CAS loops
 * that only move outwards, bucket counters by getAndAdd on long[] chunks, and the sum as a
 * compensated pair. The sum's high part is updated by CAS; the thread whose CAS succeeded knows
 * the exact rounding error of its addition (TwoSum) and adds it to the low part, so high + low
 * carries the sum to about twice the precision of a double with no lock. Buckets live in chunks
 * of 64 counters, installed by CAS on first use, indexed from key -maxKey: only key ranges that
 * occur cost memory (8 bytes per counter in an occupied chunk), while the directory is a fixed
 * (2 * maxKey + 1) / 64 references.
 *
 * A stripe is never reset: a new pane gets new stripes (see HistogramRing), so a reader never
 * sees counts of two panes mixed. A record reports whether its CAS on the sum had to retry:
 * that is how a pane learns that threads collide on this stripe. Readers use acquire/opaque reads and may see a value
 * recorded in some fields and not yet in others; nothing is promised beyond that (summaries are
 * not snapshots while writers run; each field is exact once they stop).
 */
final class StatsStripe {

  static final int CHUNK_BITS = 6;
  static final int CHUNK = 1 << CHUNK_BITS;

  private static final VarHandle CHUNKS = MethodHandles.arrayElementVarHandle(long[][].class);
  private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle COUNT;
  private static final VarHandle HIGH;
  private static final VarHandle LOW;
  private static final VarHandle MIN;
  private static final VarHandle MAX;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      COUNT = l.findVarHandle(StatsStripe.class, "count", long.class);
      HIGH = l.findVarHandle(StatsStripe.class, "high", double.class);
      LOW = l.findVarHandle(StatsStripe.class, "low", double.class);
      MIN = l.findVarHandle(StatsStripe.class, "min", double.class);
      MAX = l.findVarHandle(StatsStripe.class, "max", double.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long[][] chunks;
  @SuppressWarnings("unused") private volatile long count;
  @SuppressWarnings("unused") private volatile double high;
  @SuppressWarnings("unused") private volatile double low;
  @SuppressWarnings("unused") private volatile double min = Double.POSITIVE_INFINITY;
  @SuppressWarnings("unused") private volatile double max = Double.NEGATIVE_INFINITY;

  StatsStripe(LogBuckets buckets) {
    this.chunks = new long[((2 * buckets.maxKey() + 1) >>> CHUNK_BITS) + 1][];
  }

  /** Records {@code values}; true if it collided with another thread on this stripe. */
  boolean record(double[] values, LogBuckets buckets) {
    boolean contended = false;
    for (double v : values) {
      contended |= recordFields(v, buckets);
    }
    COUNT.getAndAdd(this, (long) values.length);
    return contended;
  }

  /** Records {@code value}; true if it collided with another thread on this stripe. */
  boolean record(double value, LogBuckets buckets) {
    boolean contended = recordFields(value, buckets);
    COUNT.getAndAdd(this, 1L);
    return contended;
  }

  /** Every field but the count, which goes last: a reader that sees the count sees the rest. */
  private boolean recordFields(double v, LogBuckets buckets) {
    int index = buckets.key(v) + buckets.maxKey();
    long[] chunk = chunk(index >>> CHUNK_BITS);
    COUNTS.getAndAdd(chunk, index & (CHUNK - 1), 1L);
    boolean contended = addToSum(v);
    lowerMin(v);
    raiseMax(v);
    return contended;
  }

  private long[] chunk(int i) {
    long[] chunk = (long[]) CHUNKS.getAcquire(chunks, i);
    if (chunk != null) {
      return chunk;
    }
    long[] fresh = new long[CHUNK];
    long[] witness = (long[]) CHUNKS.compareAndExchangeRelease(chunks, i, null, fresh);
    return witness == null ? fresh : witness;
  }

  /** Adds {@code v} to the compensated sum; true if the CAS had to retry. */
  private boolean addToSum(double v) {
    double h = (double) HIGH.getVolatile(this);
    for (boolean retried = false; ; retried = true) {
      double s = h + v;
      double witness = (double) HIGH.compareAndExchange(this, h, s);
      if (Double.doubleToRawLongBits(witness) == Double.doubleToRawLongBits(h)) {
        double error = CompensatedSum.error(h, v, s);
        if (error != 0) {
          addToLow(error);
        }
        return retried;
      }
      h = witness;
    }
  }

  private void addToLow(double e) {
    double l = (double) LOW.getVolatile(this);
    for (;;) {
      double witness = (double) LOW.compareAndExchange(this, l, l + e);
      if (Double.doubleToRawLongBits(witness) == Double.doubleToRawLongBits(l)) {
        return;
      }
      l = witness;
    }
  }

  private void lowerMin(double v) {
    double m = (double) MIN.getOpaque(this);
    while (v < m) {
      double witness = (double) MIN.compareAndExchange(this, m, v);
      if (Double.doubleToRawLongBits(witness) == Double.doubleToRawLongBits(m)) {
        return;
      }
      m = witness;
    }
  }

  private void raiseMax(double v) {
    double m = (double) MAX.getOpaque(this);
    while (v > m) {
      double witness = (double) MAX.compareAndExchange(this, m, v);
      if (Double.doubleToRawLongBits(witness) == Double.doubleToRawLongBits(m)) {
        return;
      }
      m = witness;
    }
  }

  /** Adds this stripe into the merged state of a summary. */
  void mergeInto(Merge merge, int offset) {
    long n = (long) COUNT.getAcquire(this);
    if (n == 0) {
      return;
    }
    merge.count += n;
    merge.sum.add((double) HIGH.getAcquire(this));
    merge.sum.add((double) LOW.getAcquire(this));
    merge.min = Math.min(merge.min, (double) MIN.getAcquire(this));
    merge.max = Math.max(merge.max, (double) MAX.getAcquire(this));
    for (int c = 0; c < chunks.length; c++) {
      long[] chunk = (long[]) CHUNKS.getAcquire(chunks, c);
      if (chunk == null) {
        continue;
      }
      for (int i = 0; i < CHUNK; i++) {
        long k = (long) COUNTS.getOpaque(chunk, i);
        if (k > 0) {
          merge.histogram.add((c << CHUNK_BITS) + i - offset, k);
        }
      }
    }
  }

  /** A summary being assembled from panes. */
  static final class Merge {
    long count;
    final CompensatedSum sum = new CompensatedSum();
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    final LogHistogram histogram;

    Merge(LogBuckets buckets) {
      this.histogram = new LogHistogram(buckets);
    }
  }
}
