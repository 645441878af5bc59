package io.windowpane.etcd.internal;

import java.util.Arrays;

/*
 * Design note: the exact SLIDING_LOG window of one key as (time, count) entries in time order.
 *
 * Events of the same millisecond share an entry; entries leave when now - time >= W, so the
 * count at t is exactly the events in (t - W, t]. Effective times never go backwards for a key
 * (see Doc), so appends keep the entries sorted and expiry only ever trims the oldest. For a
 * limit L the window never holds more than L entries (each holds at least one permit). A
 * counter's log is capped at MAX_COUNTER_ENTRIES distinct milliseconds like the local engine's
 * ring: once full, the newest entry absorbs the events at the newest time (the count stays
 * exact; those events leave a little later). A replay at t (see Replay), if t is inside the
 * window, joins the entry of t or is inserted in time order; in a full log the next newer entry
 * absorbs it, so it stays counted a little longer, never shorter. A replay past a limit can
 * leave more than L permits, never more than L entries. A release at t (a lease's unspent
 * permits, see Release), if t is inside the window, takes up to its count back out of the entry
 * of t and drops the entry once empty, so every entry keeps at least one event; permits that a
 * full log's newest entry absorbed under a later time stay counted (longer, never shorter).
 * Stored as the entry count, the first time, then delta-encoded times and counts as varints: a
 * few bytes per entry.
 */
final class LogState extends WindowState {

  /** Most entries of a counter's log, as in the local engine. */
  static final int MAX_COUNTER_ENTRIES = 1 << 16;

  private final long windowMillis;
  private final int maxEntries;
  private long[] times = new long[8];
  private long[] counts = new long[8];
  private int start;
  private int end;

  LogState(long windowMillis, int maxEntries) {
    this.windowMillis = windowMillis;
    this.maxEntries = maxEntries;
  }

  private void expire(long now) {
    while (start < end && now - times[start] >= windowMillis) {
      start++;
    }
  }

  @Override
  long count(long now) {
    long sum = 0;
    for (int i = end - 1; i >= start && now - times[i] < windowMillis; i--) {
      sum += counts[i];
    }
    return sum;
  }

  @Override
  void add(long now, long n) {
    expire(now);
    if (end > start && times[end - 1] >= now) {
      counts[end - 1] += n; // same millisecond (or a time at or behind the newest entry)
      return;
    }
    if (end - start >= maxEntries) {
      times[end - 1] = now; // full: the newest entry absorbs the events at the newest time
      counts[end - 1] += n;
      return;
    }
    insert(end, now, n);
  }

  @Override
  boolean replay(long now, long at, long n) {
    if (now - at >= windowMillis) {
      return false;
    }
    expire(now);
    int i = end;
    while (i > start && times[i - 1] > at) {
      i--;
    }
    if (i == end) {
      add(at, n); // no entry is newer: as an add at `at` (expiring at `now` changed nothing)
    } else if (i > start && times[i - 1] == at) {
      counts[i - 1] += n;
    } else if (end - start >= maxEntries) {
      counts[i] += n; // full: the next newer entry absorbs them (counted longer, never shorter)
    } else {
      insert(i, at, n);
    }
    return true;
  }

  @Override
  boolean release(long now, long at, long n) {
    if (now - at >= windowMillis || at > now) {
      return false;
    }
    expire(now);
    for (int i = end - 1; i >= start && times[i] >= at; i--) {
      if (times[i] == at) {
        counts[i] -= Math.min(n, counts[i]);
        if (counts[i] == 0) {
          System.arraycopy(times, i + 1, times, i, end - i - 1);
          System.arraycopy(counts, i + 1, counts, i, end - i - 1);
          end--;
        }
        break;
      }
    }
    return true;
  }

  /** Inserts the entry (time, n) before index {@code i}, in [start, end]; there is room. */
  private void insert(int i, long time, long n) {
    if (end == times.length) {
      int live = end - start;
      if (live * 2 < times.length) {
        System.arraycopy(times, start, times, 0, live);
        System.arraycopy(counts, start, counts, 0, live);
      } else {
        long[] t = Arrays.copyOfRange(times, start, start + Math.max(8, live * 2));
        long[] c = Arrays.copyOfRange(counts, start, start + Math.max(8, live * 2));
        times = t;
        counts = c;
      }
      i -= start;
      start = 0;
      end = live;
    }
    System.arraycopy(times, i, times, i + 1, end - i);
    System.arraycopy(counts, i, counts, i + 1, end - i);
    times[i] = time;
    counts[i] = n;
    end++;
  }

  @Override
  long retryAfter(long now, long permits, long limit) {
    long need = count(now) + permits - limit;
    if (need <= 0) {
      return 0;
    }
    long dropped = 0;
    for (int i = start; i < end; i++) {
      if (now - times[i] >= windowMillis) {
        continue;
      }
      dropped += counts[i];
      if (dropped >= need) {
        return Math.max(1, times[i] - now + windowMillis);
      }
    }
    return windowMillis;
  }

  @Override
  public void write(Bytes.Writer out) {
    out.varint(end - start);
    long previous = 0;
    for (int i = start; i < end; i++) {
      if (i == start) {
        out.zigzag(times[i]);
      } else {
        out.varint(times[i] - previous);
      }
      previous = times[i];
      out.varint(counts[i]);
    }
  }

  @Override
  public void read(Bytes.Reader in) {
    int n = in.count(MAX_COUNTER_ENTRIES + 1);
    times = new long[Math.max(8, n)];
    counts = new long[Math.max(8, n)];
    start = 0;
    end = n;
    long previous = 0;
    for (int i = 0; i < n; i++) {
      times[i] = i == 0 ? in.zigzag() : previous + in.varint();
      previous = times[i];
      counts[i] = in.varint();
    }
  }

  @Override
  public void clear() {
    start = 0;
    end = 0;
  }
}
