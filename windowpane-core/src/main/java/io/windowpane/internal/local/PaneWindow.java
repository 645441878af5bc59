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
 * for cancelled reservations and releases, below), so the sum of the older panes is stable,
 * and the only word that still changes is the current pane's: a decision is a single CAS on
 * it, conditional on older + current + permits <= limit. A writer that lagged and finds its
 * pane closed, or a slot holding a newer pane, re-reads head and starts again: lock-free, and
 * every restart means another operation made progress.
 *
 * Linearizability. With one limit, tryAcquire/add/count are linearizable with respect to the
 * operations' times: reads linearize at their read of the current slot, writes at their CAS.
 * With several limits a request reserves in each ring in turn and cancels on the first denial;
 * a cancelled reservation may be visible to a concurrent request for those few instructions
 * (it can only make that request stricter, never let it exceed a limit).
 *
 * Releases (LimiterStore.releaseAsync: a lease giving back what it did not spend). A release
 * takes up to n permits out of the pane of the grant's instant while the window holds it: one
 * CAS on that pane word, clamped at 0 (on a hot pane: see release()). A release, or a cancel
 * that lands after its pane closed, lowers a closed pane, so the cached older sum is stored by
 * CAS against the word read before summing, and a closed pane that lost permits replaces the
 * cache with a never-valid word of its own (invalidateOlder): a sum computed before the release
 * can then never be kept after it, and the room is back at once. An operation that read the
 * older panes before a concurrent release may still count the released permits (stricter,
 * never looser); at quiescence counts are exact (LeaseReleaseTest). Within one pane, releases
 * are linearizable with everything else (HotPaneReleaseLincheckTest). Across panes they are not,
 * and cannot be: an operation whose time lags behind head acts at the head pane, so which pane
 * a request's permits land in depends on the race for head, and a release is the one operation
 * that sees panes one by one (it then takes from an older pane: stricter, see release()).
 *
 * Weighted windows reuse the ring with P = 2 panes of length W: the current window and the
 * previous one, weighted by the part of it still inside the sliding window.
 *
 * Tags have 23 bits; a slot's pane is always within 2^22 panes of any pane asked about, as long
 * as a key is dropped after max-expiry of idleness, which Quota enforces (MAX_PANE_SPREAD).
 * A slot stores the tag without its lowest bit: the ring has at least 2 slots, so every pane a
 * slot can hold has the parity of its index (slotLag). That bit is HOT.
 *
 * Hot panes (limits only). One word per pane means every allowed decision of a hot key CASes
 * the same cache line, and two threads fight over it (measured: 2 threads ran slower than 1).
 * So a limiter window whose slot CAS fails a few times (COLLISIONS_BEFORE_STRIPES) gets
 * S = 8 stripes (PaneStripes, 128 bytes apart, allocated once, for contended keys only), and a
 * pane may then be opened HOT: its slot starts at A = S x chunk, the whole allotment of the
 * stripes counted up front, chunk = limit / 32. A request on a hot pane first CASes only its own
 * stripe (used + n <= chunk); the stripes never spend beyond A, and A is in the slot, so
 *
 *   (I1) slot count >= true count, always: true = slot - A + spent, spent <= A;
 *   (I2) the slot never passes the limit: A fits when the pane opens, and every other write
 *        (slot requests, cancels) is the single-word decision of before.
 *
 * So a request allowed by a stripe or by the slot's count is allowed for sure. A request that
 * does not fit the slot's count (which over-counts by the unspent allotment) is never denied
 * on it: it makes the pane EXACT first (exact()): seal every stripe for the pane (a sealed
 * stripe spends no more, so its unspent part is final), then one CAS replaces the hot slot
 * word by (count - unspent, not HOT). From then on the pane is a plain word holding the true
 * count, and the denial is the single-word decision against it: a denial is never taken
 * against slack. Helpers compute the same unspent sum from the same sealed words and only one
 * CAS on the hot word succeeds, so exact() is idempotent and lock-free. Closing a hot pane
 * makes it exact first, so closed panes hold true counts as before; add (counters never get
 * stripes) makes the pane exact too; cancel gives permits back to the slot, which is right for
 * either path by (I1).
 *
 * Switch rule. A pane opens HOT only if the window has stripes, the pane is newer than the
 * stripes' start, and older <= limit - 2A (with A = limit / 4 that is: the older panes hold at
 * most half the limit; for weighted windows `older` is the unweighted previous window, an upper
 * bound). Otherwise, and after any denial-side miss, the pane is the exact single word. Limits
 * below 512 (chunk < 16) never stripe. No transfer between words ever happens: the allotment
 * is fixed when the pane opens and the unspent part is taken back in the same CAS that clears
 * HOT, so there is no in-flight slack for a denier to miss (the flaw of granting allotment to
 * stripes on demand).
 *
 * Lowered limits (a limiter reconfigured at run time: Windowpane.reconfigure). The allotment
 * of a pane opened hot fitted the limit of that moment; against a lower limit it may not, and
 * (I2) would no longer hold while the stripes spend. So a request that finds a hot pane with a
 * limit below the one the window was made for (madeFor) first checks the slot against it, and
 * makes the pane exact when it does not fit: the denial, and every decision after it in that
 * pane, is then the single-word decision against the true count. Panes opened later are opened
 * hot only under the lower limit's switch rule. One comparison of two longs on the hot path,
 * false unless the limit was lowered.
 *
 * Stripes and panes. A stripe word (tag | sealed | used) only moves forward for a pane. It is
 * taken over by a newer hot pane only after the older pane was closed (for P >= 2 the newer
 * pane's opener closed the older panes of its window first) or has left the window. A count of
 * a hot pane reads the stripes, the slot, the stripes again: equal sums are a snapshot at the
 * slot read (stripes only grow); after 4 busy tries it makes the pane exact instead.
 */
final class PaneWindow extends Window {

  static final int TAG_SHIFT = 41;
  static final long TAG_MASK = (1L << 23) - 1;
  static final long HALF_LAP = 1L << 22;
  static final long CLOSED = 1L << 40;
  static final long COUNT_MASK = CLOSED - 1;
  /** In a slot word only: the lowest tag bit, which the slot's index already gives. */
  static final long HOT = 1L << TAG_SHIFT;

  /** Stripes of a hot key: a power of two; 8 x 128 bytes, allocated on contention only. */
  static final int STRIPES = 8;
  /** A stripe's chunk is limit / (4 x STRIPES): the allotment of a pane is a quarter of the limit. */
  static final int CHUNK_DIVISOR = 4 * STRIPES;
  /** Smallest chunk worth a stripe: limits below 16 x 32 = 512 keep the single-word path. */
  static final long MIN_CHUNK = 16;
  /** Failed slot CASes of a limiter before it gets stripes. */
  static final int COLLISIONS_BEFORE_STRIPES = 4;
  /** Double reads of the stripes a count tries before it makes the pane exact instead. */
  private static final int SNAPSHOT_ATTEMPTS = 4;

  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle HEAD;
  private static final VarHandle OLDER;
  private static final VarHandle INVALIDATIONS;
  private static final VarHandle STRIPES_REF;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      HEAD = l.findVarHandle(PaneWindow.class, "head", long.class);
      OLDER = l.findVarHandle(PaneWindow.class, "olderCache", long.class);
      INVALIDATIONS = l.findVarHandle(PaneWindow.class, "invalidations", long.class);
      STRIPES_REF = l.findVarHandle(PaneWindow.class, "stripes", PaneStripes.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long paneMillis;
  private final int panes;
  private final int mask;
  private final boolean weighted;
  private final long[] slots;
  /** Permits per stripe once this window is hot; 0 for a window that never stripes. */
  private final long chunk;
  /** A counter's window: only {@link #record} stripes it, with no allotment and no limit. */
  private final boolean counter;
  /** The limit this window was made for; a lower one checks a hot pane first (design note). */
  private final long madeFor;
  private final int stripeCount;
  /** Null until the slot CAS is seen to fail (a hot key); then set once, never replaced. */
  @SuppressWarnings("unused") // accessed through STRIPES_REF
  private volatile PaneStripes stripes;
  /** Failed slot CASes seen; a plain int: a lost increment only delays striping. */
  private int collisions;
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
  /**
   * Times a closed pane lost permits (a release, or a late cancel): each writes a cache word of
   * its own, never seen before, so a sum computed before it cannot be stored after it.
   */
  @SuppressWarnings("unused") // accessed through INVALIDATIONS
  private volatile long invalidations;

  private PaneWindow(long paneMillis, int panes, boolean weighted, int stripeCount, long chunk,
      boolean counter, boolean stripedAtOnce, long now) {
    this(paneMillis, panes, weighted, stripeCount, chunk, counter, stripedAtOnce, 0, now);
  }

  private PaneWindow(long paneMillis, int panes, boolean weighted, int stripeCount, long chunk,
      boolean counter, boolean stripedAtOnce, long madeFor, long now) {
    this.madeFor = madeFor;
    this.paneMillis = paneMillis;
    this.panes = panes;
    this.weighted = weighted;
    this.stripeCount = stripeCount;
    this.chunk = chunk;
    this.counter = counter;
    int n = Integer.highestOneBit(Math.max(1, panes - 1)) << 1; // nextPow2(panes), at least 2
    this.mask = n - 1;
    this.slots = new long[n];
    long p0 = Math.floorDiv(now, paneMillis);
    for (int k = n; k >= 1; k--) {
      long q = p0 - k;
      slots[index(q)] = packSlot(q, 0, CLOSED);
    }
    this.head = p0;
    if (stripedAtOnce) {
      this.stripes = newStripes(p0 - 1);
    }
  }

  /**
   * A {@code SLIDING_PANES} window of {@code panes} panes of {@code paneMillis}, for a counter:
   * stripes if {@link #record} gets hot.
   */
  static PaneWindow panes(long paneMillis, int panes, long now) {
    return new PaneWindow(paneMillis, panes, false, STRIPES, COUNT_MASK, true, false, now);
  }

  /** A {@code SLIDING_PANES} window for a limit of {@code limit}: stripes if it gets hot. */
  static PaneWindow panes(long paneMillis, int panes, long limit, long now) {
    return new PaneWindow(paneMillis, panes, false, STRIPES, chunkFor(limit), false, false, limit,
        now);
  }

  /** A {@code SLIDING_WEIGHTED} window of length {@code windowMillis}, for a counter. */
  static PaneWindow weighted(long windowMillis, long now) {
    return new PaneWindow(windowMillis, 2, true, STRIPES, COUNT_MASK, true, false, now);
  }

  /** A {@code SLIDING_WEIGHTED} window for a limit of {@code limit}: stripes if it gets hot. */
  static PaneWindow weighted(long windowMillis, long limit, long now) {
    return new PaneWindow(windowMillis, 2, true, STRIPES, chunkFor(limit), false, false, limit,
        now);
  }

  /**
   * For tests: a limit's window striped from the start with {@code stripeCount} stripes (a
   * power of two) of {@code chunk} permits, whatever the limit.
   */
  static PaneWindow striped(long paneMillis, int panes, boolean weighted, int stripeCount,
      long chunk, long now) {
    return new PaneWindow(paneMillis, weighted ? 2 : panes, weighted, stripeCount, chunk, false,
        true, now);
  }

  /**
   * For tests: a limit's window made for {@code limit}, as {@link #panes(long, int, long, long)}
   * and {@link #weighted(long, long, long)} make it, but striped from the start.
   */
  static PaneWindow stripedFor(long paneMillis, int panes, boolean weighted, long limit,
      long now) {
    return new PaneWindow(paneMillis, weighted ? 2 : panes, weighted, STRIPES, chunkFor(limit),
        false, true, limit, now);
  }

  /**
   * For tests: a counter's window striped from the start with {@code stripeCount} stripes (a
   * power of two) that record up to {@code chunk} events each per pane.
   */
  static PaneWindow stripedCounter(long paneMillis, int panes, boolean weighted, int stripeCount,
      long chunk, long now) {
    return new PaneWindow(paneMillis, weighted ? 2 : panes, weighted, stripeCount, chunk, true,
        true, now);
  }

  private static long chunkFor(long limit) {
    long chunk = limit / CHUNK_DIVISOR;
    return chunk >= MIN_CHUNK ? chunk : 0;
  }

  // ---- slot words ------------------------------------------------------------------------

  static long pack(long pane, long count, long closed) {
    return ((pane & TAG_MASK) << TAG_SHIFT) | closed | count;
  }

  /** A slot word: the tag's lowest bit is left out (the slot index says it) for {@link #HOT}. */
  static long packSlot(long pane, long count, long flags) {
    return ((pane & TAG_MASK & ~1L) << TAG_SHIFT) | flags | count;
  }

  static boolean isHot(long slot) {
    return (slot & HOT) != 0;
  }

  static long countOf(long slot) {
    return slot & COUNT_MASK;
  }

  static boolean isClosed(long slot) {
    return (slot & CLOSED) != 0;
  }

  /** 0: the word is for {@code pane}; (0, 2^22): an older pane; otherwise a newer pane. */
  static long lag(long word, long pane) {
    return (pane - (word >>> TAG_SHIFT)) & TAG_MASK;
  }

  /**
   * {@link #lag} for the word of slot {@code index(pane)}: every pane that slot can hold has
   * the parity of {@code pane} (the ring has at least 2 slots), so the tag's lowest bit is
   * implied and ignored.
   */
  static long slotLag(long slot, long pane) {
    return ((pane & ~1L) - ((slot >>> TAG_SHIFT) & ~1L)) & TAG_MASK;
  }

  private int index(long pane) {
    return (int) pane & mask;
  }

  private PaneStripes stripesAcquire() {
    return (PaneStripes) STRIPES_REF.getAcquire(this);
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
      // a CAS, not a store: if a closed pane lost permits since `cached` was read, the word
      // changed (invalidateOlder) and this sum, which may predate that, is not kept
      OLDER.compareAndSet(this, cached, pack(pe, sum, CLOSED));
    }
    return sum;
  }

  /**
   * Called after a closed pane's count went down: drops the cached older sum. The word written
   * is not closed (never valid) and unique (a count of invalidations), so any olderSum that read
   * the cache before the pane changed fails its CAS and keeps nothing.
   */
  private void invalidateOlder() {
    long seq = (long) INVALIDATIONS.getAndAdd(this, 1L) + 1;
    OLDER.setRelease(this, seq & COUNT_MASK);
  }

  private long closeOlder(long pe) {
    long sum = 0;
    for (long q = pe - panes + 1; q < pe; q++) {
      int i = index(q);
      long v = slotAcquire(i);
      for (;;) {
        long lag = slotLag(v, q);
        long update;
        if (lag == 0) {
          if (isClosed(v)) {
            sum += countOf(v);
            break;
          }
          if (isHot(v)) {
            if (exact(q) == RESTART) {
              return RESTART;
            }
            v = slotAcquire(i);
            continue;
          }
          update = v | CLOSED;
        } else if (lag < HALF_LAP) {
          update = packSlot(q, 0, CLOSED); // stale lap: nothing was recorded in pane q
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

  // ---- hot panes -------------------------------------------------------------------------

  /**
   * Makes pane {@code pe} exact if it is hot: seals its stripes, then takes their unspent
   * allotment out of the slot and clears {@link #HOT} in one CAS. Idempotent and lock-free:
   * the unspent part is final once every stripe is sealed, so every helper computes the same
   * and only one CAS on the hot word succeeds. Returns {@link #RESTART} if the stripes moved on
   * to a newer pane (head moved on too).
   */
  private long exact(long pe) {
    PaneStripes s = stripesAcquire();
    long spent = s.seal(pe);
    if (spent == PaneStripes.RESTART) {
      return RESTART;
    }
    int i = index(pe);
    long v = slotAcquire(i);
    while (slotLag(v, pe) == 0 && isHot(v)) {
      // count >= allotment - spent (see the note), so the true count is never negative
      long exactCount = Math.min(COUNT_MASK, countOf(v) - s.allotment() + spent);
      long witness = casSlot(i, v, (v & ~(HOT | COUNT_MASK)) | exactCount);
      if (witness == v) {
        return 0;
      }
      v = witness;
    }
    return 0; // made exact by another thread, or the slot moved on
  }

  /**
   * The true count of hot pane {@code pe}: slot count - allotment + what the stripes spent,
   * read as a snapshot (stripes, slot, stripes again: equal sums mean no stripe changed while
   * the slot was read, since a stripe's count for a pane only grows). After
   * {@link #SNAPSHOT_ATTEMPTS} busy tries the pane is made exact instead, so a count is
   * lock-free. {@link #RESTART} if the pane closed or moved on.
   */
  private long hotCount(long pe) {
    PaneStripes s = stripesAcquire();
    int i = index(pe);
    for (int attempt = 0; attempt < SNAPSHOT_ATTEMPTS; attempt++) {
      long before = s.spent(pe);
      long v = slotAcquire(i);
      long after = s.spent(pe);
      if (before == PaneStripes.RESTART || after == PaneStripes.RESTART
          || slotLag(v, pe) != 0 || isClosed(v)) {
        return RESTART;
      }
      if (!isHot(v)) {
        return countOf(v);
      }
      if (before == after) {
        return Math.min(COUNT_MASK, countOf(v) - s.allotment() + before);
      }
    }
    if (exact(pe) == RESTART) {
      return RESTART;
    }
    long v = slotAcquire(i);
    return slotLag(v, pe) == 0 && !isClosed(v) && !isHot(v) ? countOf(v) : RESTART;
  }

  /**
   * A failed slot CAS: after a few, the window gets its stripes (a limit's decisions or a
   * counter's records; a counter's {@link #add} never stripes).
   */
  private void contended() {
    if (chunk > 0 && stripesAcquire() == null && ++collisions >= COLLISIONS_BEFORE_STRIPES) {
      long before = (long) HEAD.getAcquire(this) - 1;
      STRIPES_REF.compareAndSet(this, null, newStripes(before));
    }
  }

  /**
   * Stripes starting sealed at pane {@code before}; a hot slot counts their whole allotment up
   * front (S x chunk) for a limit, nothing for a counter.
   */
  private PaneStripes newStripes(long before) {
    return new PaneStripes(stripeCount, chunk, counter ? 0 : stripeCount * chunk, before);
  }

  /**
   * The count of pane {@code pe} held in slot word {@code v}: 0 while the slot still holds an
   * older pane (the first write replaces it); {@link #RESTART} if pane {@code pe} is closed or the
   * slot holds a newer pane, i.e. head moved past {@code pe}.
   */
  private long currentOf(long v, long pe) {
    long lag = slotLag(v, pe);
    if (lag == 0) {
      if (isClosed(v)) {
        return RESTART;
      }
      return isHot(v) ? hotCount(pe) : countOf(v);
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
      if (slotLag(v, pe) == 0 && isHot(v)) {
        exact(pe); // add returns the count it made: simplest from an exact pane (limits only)
        continue;
      }
      long current = currentOf(v, pe);
      if (current == RESTART) {
        continue;
      }
      long updated = Math.min(COUNT_MASK, current + n);
      if (casSlot(i, v, packSlot(pe, updated, 0)) == v) {
        return windowCount(older, updated, now, pe);
      }
    }
  }

  /**
   * An event-time add: {@code n} events into pane {@code q = floorDiv(atMillis, r)}. The pane
   * of {@code now} (or newer) is an ordinary {@link #add}. An older pane still in the window is
   * first closed by {@link #olderSum} (which also made it exact and made its slot hold it), so
   * its word is a plain closed count: one CAS adds to it, and {@link #invalidateOlder} then drops
   * the cached older sum, as a release does (a sum computed before the add cannot be kept after
   * it). A pane that has left the window at head, or whose slot moved on meanwhile, is
   * {@link #LATE}: had the events come in order they would have left the window by now too.
   */
  @Override
  long addAt(long now, long atMillis, long n) {
    long p = Math.floorDiv(now, paneMillis);
    long q = Math.floorDiv(atMillis, paneMillis);
    if (q >= p) {
      return add(now, n);
    }
    for (;;) {
      long pe = advance(p);
      if (q <= pe - panes) {
        return LATE;
      }
      if (olderSum(pe) == RESTART) {
        continue;
      }
      int i = index(q);
      long v = slotAcquire(i);
      if (slotLag(v, q) != 0 || isHot(v) || !isClosed(v)) {
        continue; // head moved on meanwhile: judge again
      }
      long updated = (v & ~COUNT_MASK) | Math.min(COUNT_MASK, countOf(v) + n);
      if (casSlot(i, v, updated) == v) {
        invalidateOlder();
        return count(now);
      }
    }
  }

  /**
   * A counter's {@link #add} without the count: on a contended key the events go to the calling
   * thread's stripe (one CAS on its own line), so recording scales with threads. The pane's
   * count is the slot plus what its stripes recorded; count and add read or make it exact.
   */
  @Override
  void record(long now, long n) {
    if (!counter) {
      add(now, n);
      return;
    }
    long p = Math.floorDiv(now, paneMillis);
    for (;;) {
      long pe = advance(p);
      if (olderSum(pe) == RESTART) {
        continue; // closes (and makes exact) the older panes: their stripes may be reused
      }
      int i = index(pe);
      long v = slotAcquire(i);
      long lag = slotLag(v, pe);
      long update;
      if (lag == 0) {
        if (isClosed(v)) {
          continue;
        }
        if (isHot(v)) {
          long taken = stripesAcquire().take(pe, n);
          if (taken == PaneStripes.TAKEN) {
            return;
          }
          if (taken == PaneStripes.REFUSED) {
            exact(pe); // this stripe is full: record in the slot from now on
          }
          continue;
        }
        update = packSlot(pe, Math.min(COUNT_MASK, countOf(v) + n), 0);
      } else if (lag < HALF_LAP) {
        PaneStripes s = stripesAcquire();
        if (s != null && pe > s.before()) {
          casSlot(i, v, packSlot(pe, 0, HOT)); // open the pane hot, then record
          continue;
        }
        update = packSlot(pe, Math.min(COUNT_MASK, n), 0);
      } else {
        continue;
      }
      if (casSlot(i, v, update) == v) {
        return;
      }
      contended();
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

  /**
   * The room left at {@code now}, for a {@code Decision}. On a hot pane it is a lower bound read
   * from the pane word alone, which counts the stripes' whole allotment: it under-reports by
   * what the stripes have not spent yet (at most the allotment, a quarter of the limit, and only
   * while the window is at most half full). Reading the stripes instead costs what the stripes
   * save: measured, an allowed tryAcquire that read every stripe ran at a third of tryConsume's
   * rate at 2 threads, since each read pulls the other thread's stripe line away from it; and a
   * snapshot ({@link #count}) would even make the pane exact after 4 busy tries.
   */
  @Override
  long remaining(long now, long limit) {
    long p = Math.floorDiv(now, paneMillis);
    for (;;) {
      long pe = advance(p);
      long older = olderSum(pe);
      if (older == RESTART) {
        continue;
      }
      long v = slotAcquire(index(pe));
      long current;
      if (slotLag(v, pe) == 0 && !isClosed(v) && isHot(v)) {
        current = countOf(v); // true count + unspent allotment: see above
      } else {
        current = currentOf(v, pe);
        if (current == RESTART) {
          continue;
        }
      }
      return Math.max(0, limit - windowCount(older, current, now, pe));
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
      long lag = slotLag(v, pe);
      long current;
      if (lag == 0) {
        if (isClosed(v)) {
          continue;
        }
        if (isHot(v)) {
          if (counter) { // a counter's hot pane has no allotment: decide on its true count
            exact(pe);
            continue;
          }
          if (limit < madeFor && windowCount(older, countOf(v), now, pe) > limit) {
            exact(pe); // the limit was lowered: the allotment may not fit it (design note)
            continue;
          }
          long taken = stripesAcquire().take(pe, permits);
          if (taken == PaneStripes.TAKEN) {
            return pe;
          }
          if (taken == PaneStripes.RESTART) {
            continue;
          }
          // the slot counts every stripe's whole chunk: room against it is room for sure
          if (windowCount(older, countOf(v) + permits, now, pe) <= limit) {
            if (casSlot(i, v, v + permits) == v) {
              return pe;
            }
            continue;
          }
          exact(pe); // no room even so: decide against the true count from now on
          continue;
        }
        current = countOf(v);
      } else if (lag < HALF_LAP) {
        PaneStripes s = stripesAcquire();
        if (s != null && !counter && pe > s.before() && older <= limit - 2 * s.allotment()) {
          casSlot(i, v, packSlot(pe, s.allotment(), HOT)); // open the pane hot, then decide
          continue;
        }
        current = 0;
      } else {
        continue;
      }
      if (windowCount(older, current + permits, now, pe) > limit) {
        return DENIED;
      }
      long update = lag == 0 ? v + permits : packSlot(pe, permits, 0);
      if (casSlot(i, v, update) == v) {
        return pe;
      }
      if (!counter) {
        contended();
      }
    }
  }

  @Override
  void commit(long now, long permits, long receipt) {
    // the reservation is the record
  }

  @Override
  void cancel(long now, long permits, long receipt) {
    // A hot pane's true count is slot - allotment + spent, so giving permits back to the slot is
    // right wherever they were taken (slot or stripe), and the slot holds at least `permits`.
    int i = index(receipt);
    long v = slotAcquire(i);
    while (slotLag(v, receipt) == 0 && countOf(v) >= permits) {
      long witness = casSlot(i, v, v - permits);
      if (witness == v) {
        if (isClosed(v)) {
          invalidateOlder(); // closed meanwhile: a cached sum may hold the reservation
        }
        return;
      }
      v = witness;
    }
    // the slot moved on to a later lap: the reservation already left the window
  }

  /**
   * Takes up to {@code n} permits out of pane {@code floorDiv(atMillis, r)} (for a weighted
   * window: its fixed window) while the window holds it. A plain pane word loses
   * {@code min(n, count)} in one CAS. A hot pane's true count is slot - allotment + spent, and
   * the stripes' spent only grows, so when a read of spent after the slot word shows at least
   * {@code n} the slot loses {@code n} in one CAS on that word: exact, and the stripes keep
   * spending; otherwise the pane is made exact first. A closed pane that loses permits drops the
   * cached older sum (see {@link #invalidateOlder}). A grant whose clock lagged behind head went
   * into the head pane, not its own; its release then takes from the older pane of
   * {@code atMillis}, which leaves the window first: the window may count longer, never less.
   */
  @Override
  long release(long now, long atMillis, long n) {
    long q = Math.floorDiv(atMillis, paneMillis);
    if (q > advance(Math.floorDiv(now, paneMillis))) {
      return 0; // no grant was recorded in a pane newer than the newest one
    }
    int i = index(q);
    long v = slotAcquire(i);
    for (;;) {
      if (q <= (long) HEAD.getAcquire(this) - panes || slotLag(v, q) != 0) {
        return 0; // the pane left the window, or the slot holds another pane: nothing of q
      }
      long taken;
      if (isHot(v)) {
        PaneStripes s = stripesAcquire();
        long spent = s.spent(q);
        if (spent == PaneStripes.RESTART || countOf(v) - s.allotment() + spent < n) {
          exact(q); // too little for sure, or the stripes moved on: decide on the plain word
          v = slotAcquire(i);
          continue;
        }
        taken = n;
      } else {
        taken = Math.min(n, countOf(v));
        if (taken == 0) {
          return 0;
        }
      }
      long witness = casSlot(i, v, v - taken);
      if (witness == v) {
        if (isClosed(v)) {
          invalidateOlder();
        }
        return taken;
      }
      v = witness;
    }
  }

  /**
   * Count recorded in pane {@code q}: for retry estimates. A hot pane's true count comes from
   * {@link #hotCount}; when that pane closes meanwhile (it is made exact first) the slot is read
   * again, so the estimate never counts a hot slot's unspent allotment.
   */
  private long paneCount(long q) {
    for (;;) {
      long v = slotAcquire(index(q));
      if (slotLag(v, q) != 0) {
        return 0;
      }
      if (!isHot(v)) {
        return countOf(v);
      }
      long c = hotCount(q);
      if (c != RESTART) {
        return c;
      }
    }
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

  /** For tests: permits the stripes took for the pane of {@code now}; 0 without stripes. */
  long stripeSpent(long now) {
    PaneStripes s = stripesAcquire();
    long spent = s == null ? 0 : s.spent(Math.floorDiv(now, paneMillis));
    return Math.max(0, spent);
  }

  /** For tests: whether the pane of {@code now} is hot (its permits go through the stripes). */
  boolean hotAt(long now) {
    long pe = Math.floorDiv(now, paneMillis);
    long v = slotAcquire(index(pe));
    return slotLag(v, pe) == 0 && isHot(v);
  }

  /** For tests: whether this window has stripes (it met contention, or was built striped). */
  boolean striped() {
    return stripesAcquire() != null;
  }

  /** Ring length, for tests. */
  int ringSize() {
    return mask + 1;
  }
}
