package io.windowpane.internal.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/*
 * Design note: an exact sliding log in a fixed ring, O(limit) memory.
 *
 * Entries are (time, count) pairs packed in one word, appended in order to a ring and taken
 * from its tail once they leave the window (time <= now - W). Events of the same millisecond
 * share an entry, so a window holds at most min(limit, W in ms) entries and the ring is sized
 * for that when the key is created: nothing is allocated afterwards.
 *
 *   bits 63..24  time - base (ms; base is the key's creation time minus W, 34 years of range)
 *   bits 23..0   count (up to 16,777,215; larger adds take several entries)
 *   0            an empty slot (claimed but not yet written, or taken)
 *
 * `total` is the count of the window: every entry's count plus reservations not yet appended.
 * A decision is one CAS on total (reserve), then an append (commit); a cancelled reservation
 * just gives its permits back to total, so several limits stay all-or-nothing. Expiry takes an
 * entry with a CAS to 0, subtracts its count from total and moves the tail; whoever wins the CAS
 * owns that step. Readers stop at an empty slot, so an entry being written or taken is treated
 * as still inside the window: under concurrency a count can run high for a few instructions,
 * never low, so a limit is never exceeded. Sequentially the log is exact: retryAfter is the time
 * at which the oldest entries holding enough permits leave the window.
 *
 * Appends whose clock lags behind the newest entry keep ring order, not time order; expiry
 * stops at the first entry still inside the window, which can hold a later entry for at most
 * the lag (stricter, never looser). If a counter's ring is ever full (more distinct
 * milliseconds in the window than it was sized for), the newest entry absorbs the events at
 * the newest time: the count stays exact, those events just leave the window a little later.
 *
 * Event time (a counter's addAt). An event older than now joins the entry of its own
 * millisecond if the ring has one, or is appended at the head, out of time order. Expiry still
 * stops at the first entry inside the window, so such an entry may stay in the ring after it has
 * left the window, behind newer ones; `disorderedUntil` remembers the newest offset such an
 * entry may have been appended behind (now's, or the newest entry's if later: an entry of
 * another thread at now may be in the ring before it). Until that offset has left the window,
 * count subtracts from total the entries of the ring that have left it (total first, then the
 * entries: a concurrent expiry can make the count run high for a few instructions, never low),
 * a scan of the ring (at most 65,536 entries), and an add first looks for the entry of its
 * own millisecond (the newest entry is seldom it any more; without this, events of one
 * millisecond would take an entry each and fill the ring, which then moves events to the newest
 * time); after, the ring is in order again behind the tail and total alone is the count.
 */
final class LogWindow extends Window {

  static final int COUNT_BITS = 24;
  static final long MAX_ENTRY_COUNT = (1L << COUNT_BITS) - 1;
  static final long MAX_OFFSET = (1L << 40) - 1;

  /** Largest ring for a counter: 65,536 entries (512 KiB per key). */
  static final int MAX_COUNTER_ENTRIES = 1 << 16;

  private static final VarHandle ENTRY = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle TOTAL;
  private static final VarHandle HEAD;
  private static final VarHandle TAIL;
  private static final VarHandle DISORDER;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      TOTAL = lookup.findVarHandle(LogWindow.class, "total", long.class);
      HEAD = lookup.findVarHandle(LogWindow.class, "head", long.class);
      TAIL = lookup.findVarHandle(LogWindow.class, "tail", long.class);
      DISORDER = lookup.findVarHandle(LogWindow.class, "disorderedUntil", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long windowMillis;
  private final long base;
  private final long[] entries;
  private final int mask;
  @SuppressWarnings("unused") private volatile long total;
  @SuppressWarnings("unused") private volatile long head;
  @SuppressWarnings("unused") private volatile long tail;
  /** The newest offset an out-of-order entry was appended behind; 0 while the ring is in order. */
  private volatile long disorderedUntil;

  private LogWindow(long windowMillis, long capacity, long now) {
    this.windowMillis = windowMillis;
    this.base = now - windowMillis - 1;
    int size = Integer.highestOneBit((int) Math.min(1 << 30, Math.max(8, capacity)) - 1) << 1;
    this.entries = new long[Math.max(8, size)];
    this.mask = entries.length - 1;
  }

  /** A log for a limit of {@code limit}: enough entries that it never fills. */
  static LogWindow forLimit(long windowMillis, long limit, long now) {
    return new LogWindow(windowMillis, Math.min(limit, windowMillis) + 8, now);
  }

  /** A log for a counter: one entry per distinct millisecond, up to {@link #MAX_COUNTER_ENTRIES}. */
  static LogWindow forCounter(long windowMillis, long now) {
    return new LogWindow(windowMillis, Math.min(windowMillis + 8, MAX_COUNTER_ENTRIES), now);
  }

  private long offset(long now) {
    return Math.max(1, Math.min(MAX_OFFSET, now - base));
  }

  private static long offsetOf(long entry) {
    return entry >>> COUNT_BITS;
  }

  private static long countOf(long entry) {
    return entry & MAX_ENTRY_COUNT;
  }

  private long entryAcquire(long index) {
    return (long) ENTRY.getAcquire(entries, (int) index & mask);
  }

  private boolean casEntry(long index, long expected, long update) {
    return ENTRY.compareAndSet(entries, (int) index & mask, expected, update);
  }

  /** Takes the entries that left the window at {@code now} off the tail. */
  private void expire(long now) {
    long cutoff = now - base - windowMillis; // entries with offset <= cutoff are out
    for (;;) {
      long t = (long) TAIL.getAcquire(this);
      if (t == (long) HEAD.getAcquire(this)) {
        return;
      }
      long v = entryAcquire(t);
      if (v == 0 || offsetOf(v) > cutoff) {
        return; // being written or taken, or still inside the window
      }
      // An ABA on this CAS would need the slot refilled with an identical word, which needs the
      // clock to step back by more than W.
      if (casEntry(t, v, 0)) {
        TOTAL.getAndAdd(this, -countOf(v));
        TAIL.compareAndSet(this, t, t + 1);
      }
    }
  }

  /** Appends {@code n} (at most {@link #MAX_ENTRY_COUNT}) events at {@code now}. */
  private void append(long now, long n) {
    long off = offset(now);
    for (;;) {
      long h = (long) HEAD.getAcquire(this);
      long t = (long) TAIL.getAcquire(this);
      long last = h > t ? entryAcquire(h - 1) : 0;
      if (last != 0 && offsetOf(last) == off && countOf(last) + n <= MAX_ENTRY_COUNT) {
        if (casEntry(h - 1, last, last + n)) {
          return;
        }
        continue;
      }
      if (h - t >= entries.length) {
        expire(now);
        if (last != 0 && (long) TAIL.getAcquire(this) == t) {
          // full: the newest entry absorbs the events at the newest time
          long merged = (Math.max(off, offsetOf(last)) << COUNT_BITS)
              | Math.min(MAX_ENTRY_COUNT, countOf(last) + n);
          if (casEntry(h - 1, last, merged)) {
            return;
          }
        }
        Thread.onSpinWait();
        continue;
      }
      if (HEAD.compareAndSet(this, h, h + 1)) {
        ENTRY.setRelease(entries, (int) h & mask, (off << COUNT_BITS) | n);
        return;
      }
    }
  }

  @Override
  long add(long now, long n) {
    expire(now);
    long after = (long) TOTAL.getAndAdd(this, n) + n;
    if (disorderedUntil != 0) {
      // out of order: the newest entry is seldom now's, so find now's entry, or the ring fills
      if (!joinOwn(offset(now), n)) {
        for (long left = n; left > 0; left -= MAX_ENTRY_COUNT) {
          append(now, Math.min(left, MAX_ENTRY_COUNT));
        }
      }
      return count(now);
    }
    for (long left = n; left > 0; left -= MAX_ENTRY_COUNT) {
      append(now, Math.min(left, MAX_ENTRY_COUNT));
    }
    return after;
  }

  /**
   * Adds {@code n} to an entry at offset {@code off} if the ring has one with room, newest
   * first (one CAS on its word); false if none took them. For a ring out of time order, where
   * the newest entry is not necessarily the one of its millisecond.
   */
  private boolean joinOwn(long off, long n) {
    long t = (long) TAIL.getAcquire(this);
    for (long i = (long) HEAD.getAcquire(this) - 1; i >= t; i--) {
      long v = entryAcquire(i);
      while (v != 0 && offsetOf(v) == off && countOf(v) + n <= MAX_ENTRY_COUNT) {
        if (casEntry(i, v, v + n)) {
          return true;
        }
        v = entryAcquire(i);
      }
    }
    return false;
  }

  @Override
  long addAt(long now, long atMillis, long n) {
    expire(now);
    long off = atMillis - base;
    if (atMillis > now || off < 1 || off <= now - base - windowMillis) {
      return LATE; // left the window (the caller passes min(atMillis, now))
    }
    TOTAL.getAndAdd(this, n);
    long left = n;
    if (atMillis < now) {
      // older than now: entries of other threads at now (or later) may precede it in the ring,
      // so until the newest of them leaves the window, count scans the ring
      long h = (long) HEAD.getAcquire(this);
      long t = (long) TAIL.getAcquire(this);
      long last = h > t ? entryAcquire(h - 1) : 0;
      long newest = Math.max(offset(now), last == 0 ? 0 : offsetOf(last));
      for (long d = disorderedUntil; d < newest; d = disorderedUntil) {
        if (DISORDER.compareAndSet(this, d, newest)) {
          break;
        }
      }
      if (left <= MAX_ENTRY_COUNT && joinOwn(off, left)) { // the entry of its own millisecond
        left = 0;
      }
    }
    for (; left > 0; left -= MAX_ENTRY_COUNT) {
      append(atMillis, Math.min(left, MAX_ENTRY_COUNT));
    }
    return count(now);
  }

  @Override
  long count(long now) {
    expire(now);
    long total = (long) TOTAL.getAcquire(this);
    long cutoff = now - base - windowMillis;
    long d = disorderedUntil;
    if (d == 0) {
      return total;
    }
    if (d <= cutoff) {
      DISORDER.compareAndSet(this, d, 0L); // every entry behind it has left: in order again
      return total;
    }
    long h = (long) HEAD.getAcquire(this);
    for (long i = (long) TAIL.getAcquire(this); i < h; i++) {
      long v = entryAcquire(i);
      if (v != 0 && offsetOf(v) <= cutoff) {
        total -= countOf(v);
      }
    }
    return Math.max(0, total);
  }

  @Override
  long reserve(long now, long permits, long limit) {
    expire(now);
    long current = (long) TOTAL.getAcquire(this);
    for (;;) {
      if (current + permits > limit) {
        return DENIED;
      }
      long witness = (long) TOTAL.compareAndExchange(this, current, current + permits);
      if (witness == current) {
        return 0;
      }
      current = witness;
    }
  }

  @Override
  void commit(long now, long permits, long receipt) {
    append(now, permits);
  }

  @Override
  void cancel(long now, long permits, long receipt) {
    TOTAL.getAndAdd(this, -permits);
  }

  /**
   * Takes up to {@code n} events out of the entries at {@code atMillis}, newest entries first,
   * each with one CAS on its word (a count may reach 0: the entry then waits for expiry like any
   * other), then from total. Whoever wins an entry's CAS owns those permits, so a release racing
   * expiry never subtracts twice. Nothing once {@code atMillis <= now - W}: those events have
   * left the window, even if an entry behind a lagging one is still in the ring.
   */
  @Override
  long release(long now, long atMillis, long n) {
    expire(now);
    long off = atMillis - base;
    if (((atMillis ^ base) & (atMillis ^ off)) < 0 || off < 1 || off >= MAX_OFFSET
        || off <= now - base - windowMillis) {
      return 0; // overflowed, out of the log's range, or left the window
    }
    long taken = 0;
    long t = (long) TAIL.getAcquire(this);
    for (long i = (long) HEAD.getAcquire(this) - 1; i >= t && taken < n; i--) {
      long v = entryAcquire(i);
      while (v != 0 && offsetOf(v) == off && countOf(v) > 0) {
        long k = Math.min(n - taken, countOf(v));
        if (casEntry(i, v, v - k)) {
          TOTAL.getAndAdd(this, -k);
          taken += k;
          break;
        }
        v = entryAcquire(i);
      }
    }
    return taken;
  }

  @Override
  long retryAfter(long now, long permits, long limit) {
    expire(now);
    long need = (long) TOTAL.getAcquire(this) + permits - limit;
    if (need <= 0) {
      return 0;
    }
    long sinceBase = now - base;
    long h = (long) HEAD.getAcquire(this);
    long dropped = 0;
    for (long i = (long) TAIL.getAcquire(this); i < h; i++) {
      long v = entryAcquire(i);
      if (v == 0) {
        break; // being written: it is as recent as now
      }
      dropped += countOf(v);
      if (dropped >= need) {
        return Math.max(1, offsetOf(v) - sinceBase + windowMillis);
      }
    }
    return windowMillis;
  }

  /** Ring length, for tests. */
  int capacity() {
    return entries.length;
  }
}
