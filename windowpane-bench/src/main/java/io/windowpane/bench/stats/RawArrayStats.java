package io.windowpane.bench.stats;

import io.windowpane.MillisClock;
import java.util.concurrent.ConcurrentHashMap;

/*
 * Design note: the raw-array design, in process. It is the design that articles publish (every raw
 * value of the window kept, the whole window fetched and the statistics recomputed on each
 * request) without Redis: per key, a ring of (time, value) pairs in two primitive arrays (no
 * boxing), grown by doubling like ArrayDeque. A record drops the expired values at the head and
 * appends; a summary drops the expired values, copies the live ones into a new double[] under the
 * key's monitor, and sorts and sums that copy outside it (so a long sort does not block
 * writers). It is a fair peer, not a straw man: it is about what a careful engineer writes
 * before reaching for a histogram, and what windowpane's own exact window does (which keeps its
 * values in a lock-free queue instead).
 *
 * Concurrent writers may append slightly out of time order (a thread that read the clock before
 * another moved it), so the head trim stops at the first live value and the copy filters every
 * value by time: the window is exactly (t - W, t], as in windowpane's exact window.
 *
 * Memory: 16 bytes per slot of the ring (a long and a double), and the ring has up to twice the
 * slots it needs after growing; the copy of a summary is 8 bytes per live value, garbage after.
 */

/**
 * The raw-array statistics window: every value of the last {@code windowMillis} kept per key; a
 * summary copies and sorts them all. Thread-safe (a monitor per key); keys never expire (the
 * benchmarks do not need it).
 */
public final class RawArrayStats {

  private final ConcurrentHashMap<String, Ring> rings = new ConcurrentHashMap<>();
  private final MillisClock clock;
  private final long windowMillis;

  public RawArrayStats(MillisClock clock, long windowMillis) {
    if (windowMillis < 1) {
      throw new IllegalArgumentException("windowMillis must be at least 1, was " + windowMillis);
    }
    this.clock = clock;
    this.windowMillis = windowMillis;
  }

  /** Records {@code value} now: drops the key's expired values and appends. */
  public void record(String key, double value) {
    long now = clock.millis();
    Ring ring = rings.get(key);
    if (ring == null) {
      ring = rings.computeIfAbsent(key, k -> new Ring());
    }
    ring.append(now, value, windowMillis);
  }

  /** The key's statistics now, recomputed from every value in the window. */
  public RawSummary summary(String key) {
    long now = clock.millis();
    Ring ring = rings.get(key);
    return RawSummary.recompute(ring == null ? new double[0] : ring.live(now, windowMillis));
  }

  /** How many values the key's window holds now (without copying them). */
  public int count(String key) {
    long now = clock.millis();
    Ring ring = rings.get(key);
    return ring == null ? 0 : ring.count(now, windowMillis);
  }

  /** Slots the key's ring has room for (its memory is 16 bytes per slot); 0 if never seen. */
  public int capacity(String key) {
    Ring ring = rings.get(key);
    return ring == null ? 0 : ring.capacity();
  }

  /** One key's values: a ring of (time, value) in primitive arrays, guarded by its monitor. */
  private static final class Ring {
    private long[] times = new long[16];
    private double[] values = new double[16];
    private int head;
    private int size;

    synchronized void append(long now, double value, long windowMillis) {
      dropExpired(now, windowMillis);
      if (size == times.length) {
        grow();
      }
      int tail = (head + size) & (times.length - 1);
      times[tail] = now;
      values[tail] = value;
      size++;
    }

    /** The values in (now - W, now], in a new array. */
    synchronized double[] live(long now, long windowMillis) {
      dropExpired(now, windowMillis);
      double[] out = new double[size];
      int n = 0;
      int mask = times.length - 1;
      for (int i = 0; i < size; i++) {
        int slot = (head + i) & mask;
        if (now - times[slot] < windowMillis) {
          out[n++] = values[slot];
        }
      }
      return n == size ? out : java.util.Arrays.copyOf(out, n);
    }

    synchronized int count(long now, long windowMillis) {
      dropExpired(now, windowMillis);
      int n = 0;
      int mask = times.length - 1;
      for (int i = 0; i < size; i++) {
        n += now - times[(head + i) & mask] < windowMillis ? 1 : 0;
      }
      return n;
    }

    synchronized int capacity() {
      return times.length;
    }

    private void dropExpired(long now, long windowMillis) {
      int mask = times.length - 1;
      while (size > 0 && now - times[head] >= windowMillis) {
        head = (head + 1) & mask;
        size--;
      }
    }

    private void grow() {
      int n = times.length;
      long[] t = new long[n * 2];
      double[] v = new double[n * 2];
      int first = n - head; // slots from head to the end of the old arrays
      System.arraycopy(times, head, t, 0, first);
      System.arraycopy(times, 0, t, first, head);
      System.arraycopy(values, head, v, 0, first);
      System.arraycopy(values, 0, v, first, head);
      times = t;
      values = v;
      head = 0;
    }
  }
}
