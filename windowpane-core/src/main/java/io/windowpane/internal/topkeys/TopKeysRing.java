package io.windowpane.internal.topkeys;

import io.windowpane.Algorithm;
import io.windowpane.TopKey;
import io.windowpane.WindowSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;

/*
 * Design note: the heaviest keys of one counter, limiter or statistics window, in the local engine.
 *
 * One ring of panes for the whole window (not per key): pane p (floor(t / r)) lives in slot
 * p mod P and holds S stripes, each a Space-Saving sketch of k counters behind its own lock.
 * A ranking merges the sketches of the P live panes (p - P, p] with TopMerge, like a histogram
 * summary merges a key's panes, so the window seen is the pane window's: between W - r and W of
 * history. Log and weighted windows get panes of W / 10 (W / 1 when 10 does not divide W).
 *
 * Feeding it is the price of turning it on, so it is off by default and costs nothing then (the
 * engine does not build a ring, and its stores are the same objects as without it). When on,
 * every event takes one lock: a thread tries its own stripe (by thread id) and the next ones with
 * tryLock, and waits only when all S are held, so S threads rarely meet. Measured cost and the
 * choice against alternatives (sampling loses the deterministic bound; feeding a key's count when
 * its pane closes would need a hook in the lock-free pane ring's hot path) are in
 * docs/statistics.md. S is the next power of two of the processors, at most 8; a stripe's sketch
 * is allocated by its first event, so memory is at most P x S x k counters (about 100 bytes
 * each) and usually much less.
 *
 * Panes roll over by replacing the slot's Pane object with a CAS. A writer that read the old Pane
 * just before may still offer into it: that event is lost to the ring, but it belonged to a pane
 * P panes old, already outside the window. A writer whose clock lags behind the ring's newest
 * pane in that slot counts its event in the newer pane (an over-count, in the direction of the
 * bound, by at most the events in flight across a pane edge). Readers lock one stripe at a time,
 * so a ranking is not one atomic snapshot of the whole window while events arrive; each stripe
 * is consistent and the bound holds for the events the ranking saw.
 */
/** Per-pane Space-Saving sketches of one window's keys, merged on demand. Thread-safe. */
public final class TopKeysRing {

  private static final int STRIPES = stripes(Runtime.getRuntime().availableProcessors());

  private final long paneMillis;
  private final int panes;
  private final int counters;
  private final AtomicReferenceArray<Pane> ring;

  /** A ring over {@code window}'s panes with {@code counters} counters per pane and stripe. */
  public TopKeysRing(WindowSpec window, int counters) {
    if (window.algorithm() == Algorithm.SLIDING_PANES) {
      this.panes = window.panes();
    } else {
      this.panes = window.windowMillis() % 10 == 0 ? 10 : 1;
    }
    this.paneMillis = window.windowMillis() / panes;
    this.counters = counters;
    this.ring = new AtomicReferenceArray<>(panes);
  }

  static int stripes(int processors) {
    int s = Integer.highestOneBit(Math.max(1, Math.min(8, processors)));
    return s < processors && s < 8 ? s * 2 : s;
  }

  /** Counts {@code weight} (at least 1) events for {@code key} at {@code now}. */
  public void offer(String key, long weight, long now) {
    Pane pane = paneFor(Math.floorDiv(now, paneMillis));
    Stripe[] stripes = pane.stripes;
    int mask = stripes.length - 1;
    int home = mix(Thread.currentThread().getId()) & mask;
    for (int i = 0; i < stripes.length; i++) {
      Stripe s = stripes[(home + i) & mask];
      if (s.tryLock()) {
        s.offerLocked(key, weight, counters);
        return;
      }
    }
    Stripe s = stripes[home];
    s.lock();
    s.offerLocked(key, weight, counters);
  }

  /** The {@code n} heaviest keys over the window at {@code now}, heaviest first. */
  public List<TopKey> top(int n, long now) {
    long pe = Math.floorDiv(now, paneMillis);
    List<SpaceSaving.Snapshot> parts = new ArrayList<>();
    for (int i = 0; i < panes; i++) {
      Pane pane = ring.get(i);
      if (pane == null || pane.index <= pe - panes || pane.index > pe) {
        continue;
      }
      for (Stripe s : pane.stripes) {
        SpaceSaving.Snapshot snapshot = s.snapshot();
        if (snapshot != null) {
          parts.add(snapshot);
        }
      }
    }
    return TopMerge.top(parts, n);
  }

  /** Counters per pane and stripe. */
  public int counters() {
    return counters;
  }

  private Pane paneFor(long p) {
    int i = (int) Math.floorMod(p, (long) panes);
    for (;;) {
      Pane pane = ring.get(i);
      if (pane != null && pane.index >= p) {
        return pane; // this pane, or (a lagging clock) a newer one: see the design note
      }
      Pane fresh = new Pane(p);
      if (ring.compareAndSet(i, pane, fresh)) {
        return fresh;
      }
    }
  }

  private static int mix(long id) {
    long h = id * 0x9E3779B97F4A7C15L;
    return (int) (h >>> 32);
  }

  private static final class Pane {
    final long index;
    final Stripe[] stripes = new Stripe[STRIPES];

    Pane(long index) {
      this.index = index;
      for (int i = 0; i < stripes.length; i++) {
        stripes[i] = new Stripe();
      }
    }
  }

  @SuppressWarnings("serial")
  private static final class Stripe extends ReentrantLock {
    private SpaceSaving sketch; // guarded by this lock; null until the first event

    /** Offers under the lock, which the caller holds, and releases it. */
    void offerLocked(String key, long weight, int counters) {
      try {
        if (sketch == null) {
          sketch = new SpaceSaving(counters);
        }
        sketch.offer(key, weight);
      } finally {
        unlock();
      }
    }

    SpaceSaving.Snapshot snapshot() {
      lock();
      try {
        return sketch == null ? null : sketch.snapshot();
      } finally {
        unlock();
      }
    }
  }
}
