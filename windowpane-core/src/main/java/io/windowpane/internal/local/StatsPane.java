package io.windowpane.internal.local;

import io.windowpane.LogBuckets;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/*
 * Design note: one pane of a histogram window, striped only when threads collide on it.
 *
 * A pane starts with one StatsStripe. Two threads recording into the same pane at once both
 * update its count, sum, min, max and bucket counters: the cache lines bounce between cores and
 * the sum's CAS retries (StatsBenchmark measured ~28 M records/s on one thread and ~7 M/s on two,
 * on one key). So, like java.util.concurrent.atomic.LongAdder, a record whose sum CAS had to
 * retry doubles the pane's stripes (up to MAX_STRIPES) and moves its thread to another stripe;
 * a thread picks its stripe by a per-thread probe, read only once a pane has more than one
 * stripe, so an uncontended pane costs nothing extra. A summary merges every stripe (the merge
 * is exact: stripes are histograms of disjoint sets of values).
 *
 * Growing replaces the stripe array by CAS with a longer one holding the same stripe objects
 * first, so a writer still using the old array writes into a stripe that the new array (and
 * every later summary) still holds: nothing is lost. A new pane starts with as many stripes as
 * the pane it replaces had, so a hot key does not relearn its contention every pane. Memory: a
 * key that never sees concurrent records keeps one stripe per pane; a hot one up to MAX_STRIPES.
 */
final class StatsPane {

  /** Most stripes per pane: the processors, rounded up to a power of two, at most 8. */
  static final int MAX_STRIPES = maxStripes(Runtime.getRuntime().availableProcessors());

  private static final VarHandle STRIPES;
  private static final ThreadLocal<int[]> PROBE =
      ThreadLocal.withInitial(() -> new int[] {(int) Thread.currentThread().getId() * 0x9E3779B9});

  static {
    try {
      STRIPES = MethodHandles.lookup().findVarHandle(StatsPane.class, "stripes",
          StatsStripe[].class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The pane index, floorDiv(t, r). */
  final long id;
  private final LogBuckets buckets;
  @SuppressWarnings("unused") private volatile StatsStripe[] stripes;

  /** A pane with {@code stripes} stripes (1, or as many as the pane it replaces had). */
  StatsPane(long id, LogBuckets buckets, int stripes) {
    this.id = id;
    this.buckets = buckets;
    StatsStripe[] s = new StatsStripe[stripes];
    for (int i = 0; i < stripes; i++) {
      s[i] = new StatsStripe(buckets);
    }
    this.stripes = s;
  }

  void record(double[] values, LogBuckets buckets) {
    StatsStripe[] s = stripesAcquire();
    int[] probe = s.length == 1 ? null : PROBE.get();
    if (stripe(s, probe).record(values, buckets)) {
      spread(s, probe);
    }
  }

  void record(double value, LogBuckets buckets) {
    StatsStripe[] s = stripesAcquire();
    int[] probe = s.length == 1 ? null : PROBE.get();
    if (stripe(s, probe).record(value, buckets)) {
      spread(s, probe);
    }
  }

  private static StatsStripe stripe(StatsStripe[] s, int[] probe) {
    return probe == null ? s[0] : s[(probe[0] >>> 16) & (s.length - 1)];
  }

  static int maxStripes(int processors) {
    return processors <= 1 ? 1 : Math.min(8, Integer.highestOneBit(processors - 1) << 1);
  }

  /** After a collision: more stripes if allowed, and this thread elsewhere. */
  private void spread(StatsStripe[] seen, int[] probe) {
    if (probe == null) {
      probe = PROBE.get();
    }
    int p = probe[0];
    p ^= p << 13; // xorshift: the next stripe this thread tries
    p ^= p >>> 17;
    p ^= p << 5;
    probe[0] = p;
    if (seen.length < MAX_STRIPES) {
      StatsStripe[] grown = new StatsStripe[seen.length * 2];
      System.arraycopy(seen, 0, grown, 0, seen.length);
      for (int i = seen.length; i < grown.length; i++) {
        grown[i] = new StatsStripe(buckets);
      }
      STRIPES.compareAndSet(this, seen, grown); // lost race: another thread grew it
    }
  }

  /** Adds this pane into the merged state of a summary. */
  void mergeInto(StatsStripe.Merge merge, int offset) {
    for (StatsStripe s : stripesAcquire()) {
      s.mergeInto(merge, offset);
    }
  }

  /** How many stripes the pane has now. */
  int stripeCount() {
    return stripesAcquire().length;
  }

  private StatsStripe[] stripesAcquire() {
    return (StatsStripe[]) STRIPES.getAcquire(this);
  }
}
