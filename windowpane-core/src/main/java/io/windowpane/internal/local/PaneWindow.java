package io.windowpane.internal.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/*
 * Design note: a pane ring where each pane is ONE 64-bit word.
 *
 * The window is P panes of r ms, aligned on the epoch (pane = floorDiv(t, r)), kept in a ring
 * of N = nextPow2(P) slots reused in place. A popular pane-ring design keeps a pane's start
 * time and its count in two fields; a reader can then see the new start with the old count (or
 * the reverse) while a writer resets the pane, and counts leak across laps. Here a slot packs
 * both into one word, so every read and every compare-and-swap sees a consistent pane:
 *
 *   bits 63..41  tag    the pane index modulo 2^23
 *   bit  40      closed set once the pane is no longer the newest: it never changes again
 *   bits 39..0   count  events recorded in the pane (saturates at 2^40 - 1)
 *
 * Protocol. `head` is the newest pane any operation has reached (monotonic). An operation at
 * time t works on pane pe = max(floorDiv(t, r), head), moving head forward first if t is newer;
 * an operation whose clock lags behind head therefore acts at the newest pane, which can only
 * count its events longer, never shorter. Before reading the older panes of its window
 * (pe-P, pe-1] it closes any that are still open (helping whoever advanced head), and refreshes
 * slots that still hold a pane older than the one they should hold to (that pane, 0, closed),
 * so a tag can never be mistaken for a pane one 2^23 lap away. Closed panes never change (but
 * for cancelled reservations, below), so the sum of the older panes is stable, and the only word
 * that still changes is the current pane's: a decision is a single CAS on it, conditional on
 * older + current + permits <= limit. A writer that lagged and finds its pane closed, or a slot
 * holding a newer pane, re-reads head and starts again: lock-free, and every restart means
 * another operation made progress.
 *
 * Linearizability. With one limit, tryAcquire/add/count are linearizable with respect to the
 * operations' times: reads linearize at their read of the current slot, writes at their CAS.
 * With several limits a request reserves in each ring in turn and cancels on the first denial;
 * a cancelled reservation may be visible to a concurrent request for those few instructions
 * (it can only make that request stricter, never let it exceed a limit).
 *
 * Weighted windows reuse the ring with P = 2 panes of length W: the current window and the
 * previous one, weighted by the part of it still inside the sliding window.
 *
 * Tags have 23 bits; a slot's pane is always within 2^22 panes of any pane asked about, as long
 * as a key is dropped after max-expiry of idleness, which Quota enforces (MAX_PANE_SPREAD).
 */
final class PaneWindow extends Window {

  static final int TAG_SHIFT = 41;
  static final long TAG_MASK = (1L << 23) - 1;
  static final long HALF_LAP = 1L << 22;
  static final long CLOSED = 1L << 40;
  static final long COUNT_MASK = CLOSED - 1;

  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle HEAD;
  private static final VarHandle OLDER;

  static {
    try {
      HEAD = MethodHandles.lookup().findVarHandle(PaneWindow.class, "head", long.class);
      OLDER = MethodHandles.lookup().findVarHandle(PaneWindow.class, "olderCache", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long paneMillis;
  private final int panes;
  private final int mask;
  private final boolean weighted;
  private final long[] slots;
  @SuppressWarnings("unused") // accessed through HEAD
  private volatile long head;
  /**
   * The sum of the older panes of one pane, packed like a slot (closed bit = valid): those
   * panes are closed, so the sum holds for every operation at that pane and the decision path
   * reads one word instead of P - 1. Racy publication is fine: every writer stores a sum of
   * closed panes for its pane; a reader that finds another pane's sum recomputes.
   */
  @SuppressWarnings("unused") // accessed through OLDER
  private volatile long olderCache;

  private PaneWindow(long paneMillis, int panes, boolean weighted, long now) {
    this.paneMillis = paneMillis;
    this.panes = panes;
    this.weighted = weighted;
    int n = Integer.highestOneBit(Math.max(1, panes - 1)) << 1; // nextPow2(panes), at least 2
    this.mask = n - 1;
    this.slots = new long[n];
    long p0 = Math.floorDiv(now, paneMillis);
    for (int k = n; k >= 1; k--) {
      long q = p0 - k;
      slots[index(q)] = pack(q, 0, CLOSED);
    }
    this.head = p0;
  }

  /** A {@code SLIDING_PANES} window of {@code panes} panes of {@code paneMillis}. */
  static PaneWindow panes(long paneMillis, int panes, long now) {
    return new PaneWindow(paneMillis, panes, false, now);
  }

  /** A {@code SLIDING_WEIGHTED} window of length {@code windowMillis}. */
  static PaneWindow weighted(long windowMillis, long now) {
    return new PaneWindow(windowMillis, 2, true, now);
  }

  // ---- slot words ------------------------------------------------------------------------

  static long pack(long pane, long count, long closed) {
    return ((pane & TAG_MASK) << TAG_SHIFT) | closed | count;
  }

  static long countOf(long slot) {
    return slot & COUNT_MASK;
  }

  static boolean isClosed(long slot) {
    return (slot & CLOSED) != 0;
  }

  /** 0: the slot holds {@code pane}; (0, 2^22): an older pane; otherwise a newer pane. */
  static long lag(long slot, long pane) {
    return (pane - (slot >>> TAG_SHIFT)) & TAG_MASK;
  }

  private int index(long pane) {
    return (int) pane & mask;
  }

  private long slotAcquire(int i) {
    return (long) SLOT.getAcquire(slots, i);
  }

  /** Returns the witness value: equal to {@code expected} on success. */
  private long casSlot(int i, long expected, long update) {
    return (long) SLOT.compareAndExchange(slots, i, expected, update);
  }

  /** Moves head to {@code pane} if it is newer; returns the pane to act at (never older than head). */
  private long advance(long pane) {
    long h = (long) HEAD.getAcquire(this);
    while (pane > h) {
      long witness = (long) HEAD.compareAndExchange(this, h, pane);
      if (witness == h) {
        return pane;
      }
      h = witness;
    }
    return h;
  }

  private static final long RESTART = -1;

  /**
   * Closes and sums the older panes of the window ending at {@code pe}: the previous pane only
   * for a weighted window. Returns {@link #RESTART} if a slot already holds a newer pane.
   */
  private long olderSum(long pe) {
    long cached = (long) OLDER.getAcquire(this);
    if (isClosed(cached) && lag(cached, pe) == 0) {
      return countOf(cached);
    }
    long sum = closeOlder(pe);
    if (sum != RESTART && sum <= COUNT_MASK) {
      OLDER.setRelease(this, pack(pe, sum, CLOSED));
    }
    return sum;
  }

  private long closeOlder(long pe) {
    long sum = 0;
    for (long q = pe - panes + 1; q < pe; q++) {
      int i = index(q);
      long v = slotAcquire(i);
      for (;;) {
        long lag = lag(v, q);
        long update;
        if (lag == 0) {
          if (isClosed(v)) {
            sum += countOf(v);
            break;
          }
          update = v | CLOSED;
        } else if (lag < HALF_LAP) {
          update = pack(q, 0, CLOSED); // stale lap: nothing was recorded in pane q
        } else {
          return RESTART;
        }
        long witness = casSlot(i, v, update);
        if (witness == v) {
          sum += countOf(update);
          break;
        }
        v = witness;
      }
    }
    return sum;
  }

  /**
   * The count of pane {@code pe} held in slot word {@code v}: 0 while the slot still holds an
   * older pane (the first write replaces it); {@link #RESTART} if pane {@code pe} is closed or the
   * slot holds a newer pane, i.e. head moved past {@code pe}.
   */
  private static long currentOf(long v, long pe) {
    long lag = lag(v, pe);
    if (lag == 0) {
      return isClosed(v) ? RESTART : countOf(v);
    }
    return lag < HALF_LAP ? 0 : RESTART;
  }

  /** The part of the previous window still inside the sliding window, rounded up. */
  private long weightedPrevious(long previous, long now, long pe) {
    long elapsed = Math.max(0, now - pe * paneMillis);
    return previous == 0 ? 0 : WideMath.mulDivCeil(previous, paneMillis - elapsed, paneMillis);
  }

  private long windowCount(long older, long current, long now, long pe) {
    return current + (weighted ? weightedPrevious(older, now, pe) : older);
  }

  // ---- operations ------------------------------------------------------------------------

  @Override
  long add(long now, long n) {
    long p = Math.floorDiv(now, paneMillis);
    for (;;) {
      long pe = advance(p);
      long older = olderSum(pe);
      if (older == RESTART) {
        continue;
      }
      int i = index(pe);
      long v = slotAcquire(i);
      long current = currentOf(v, pe);
      if (current == RESTART) {
        continue;
      }
      long updated = Math.min(COUNT_MASK, current + n);
      if (casSlot(i, v, pack(pe, updated, 0)) == v) {
        return windowCount(older, updated, now, pe);
      }
    }
  }

  @Override
  long count(long now) {
    long p = Math.floorDiv(now, paneMillis);
    for (;;) {
      long pe = advance(p);
      long older = olderSum(pe);
      if (older == RESTART) {
        continue;
      }
      long current = currentOf(slotAcquire(index(pe)), pe);
      if (current != RESTART) {
        return windowCount(older, current, now, pe);
      }
    }
  }

  @Override
  long reserve(long now, long permits, long limit) {
    long p = Math.floorDiv(now, paneMillis);
    for (;;) {
      long pe = advance(p);
      long older = olderSum(pe);
      if (older == RESTART) {
        continue;
      }
      int i = index(pe);
      long v = slotAcquire(i);
      long current = currentOf(v, pe);
      if (current == RESTART) {
        continue;
      }
      if (windowCount(older, current + permits, now, pe) > limit) {
        return DENIED;
      }
      if (casSlot(i, v, pack(pe, current + permits, 0)) == v) {
        return pe;
      }
    }
  }

  @Override
  void commit(long now, long permits, long receipt) {
    // the reservation is the record
  }

  @Override
  void cancel(long now, long permits, long receipt) {
    int i = index(receipt);
    long v = slotAcquire(i);
    while (lag(v, receipt) == 0 && countOf(v) >= permits) {
      long witness = casSlot(i, v, v - permits);
      if (witness == v) {
        return;
      }
      v = witness;
    }
    // the slot moved on to a later lap: the reservation already left the window
  }

  /** Count recorded in pane {@code q}, without helping: for retry estimates. */
  private long paneCount(long q) {
    long v = slotAcquire(index(q));
    return lag(v, q) == 0 ? countOf(v) : 0;
  }

  @Override
  long retryAfter(long now, long permits, long limit) {
    long pe = advance(Math.floorDiv(now, paneMillis));
    long untilPane = pe * paneMillis - now; // <= 0 unless now lags behind head
    if (weighted) {
      return weightedRetryAfter(now, permits, limit, pe, untilPane);
    }
    long total = 0;
    for (long q = pe - panes + 1; q <= pe; q++) {
      total += paneCount(q);
    }
    long need = total + permits - limit;
    if (need <= 0) {
      return 0;
    }
    long dropped = 0;
    for (int k = 1; k <= panes; k++) {
      dropped += paneCount(pe - panes + k);
      if (dropped >= need) {
        return untilPane + k * paneMillis; // pane pe + k no longer holds the k oldest panes
      }
    }
    return untilPane + panes * paneMillis; // only under concurrent writes
  }

  private long weightedRetryAfter(long now, long permits, long limit, long pe, long untilPane) {
    long w = paneMillis;
    long current = paneCount(pe);
    long previous = paneCount(pe - 1);
    long elapsed = Math.max(0, -untilPane);
    long room = limit - current - permits;
    if (room >= 0) {
      // still this window: previous * (W - e) <= room * W  <=>  e >= W - floor(room * W / previous)
      long from = previous == 0 ? 0 : w - Math.min(w, WideMath.mulDivFloor(room, w, previous));
      if (from <= elapsed) {
        return 0;
      }
      if (from < w) {
        return from - elapsed;
      }
    }
    // next window: nothing current yet, this window's count is the weighted previous one
    long fromNext = current == 0 ? 0
        : w - Math.min(w, WideMath.mulDivFloor(limit - permits, w, current));
    if (fromNext < w) {
      return untilPane + w + fromNext;
    }
    return untilPane + 2 * w;
  }

  /** Ring length, for tests. */
  int ringSize() {
    return mask + 1;
  }
}
