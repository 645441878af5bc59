package io.windowpane.internal.local;

import io.windowpane.CapacityExceededException;
import io.windowpane.Summary;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/*
 * Design note: an exact statistics window keeps every (time, value) in a lock-free queue
 * (Michael-Scott, ConcurrentLinkedQueue) in about the order recorded. A record first removes the
 * expired entries at the head, then reserves room for its values by CAS on a size counter (so
 * the bound holds under any concurrency, and a refused batch records nothing), then appends.
 * Concurrent writers may append slightly out of time order; a summary therefore filters every
 * entry by time instead of trusting the order, and the head trim only ever removes entries that
 * are expired (an out-of-order expired entry stays, counted against the bound, until it reaches
 * the head). Memory: a queue node (24 bytes) and an entry (32 bytes) per value, 56 bytes with
 * compressed references.
 */
final class ExactValues implements StatsWindow {

  private static final class Entry {
    final long time;
    final double value;

    Entry(long time, double value) {
      this.time = time;
      this.value = value;
    }
  }

  private final ConcurrentLinkedQueue<Entry> entries = new ConcurrentLinkedQueue<>();
  private final AtomicInteger size = new AtomicInteger();
  private final long windowMillis;
  private final int maxValues;
  private final String name;

  ExactValues(long windowMillis, int maxValues, String name) {
    this.windowMillis = windowMillis;
    this.maxValues = maxValues;
    this.name = name;
  }

  @Override
  public void record(long now, double[] values) {
    recordAt(now, now, values);
  }

  /**
   * Entries carry their own time and a summary filters by time, so an event-time record is an
   * append at {@code atMillis}; an entry that leaves the window behind newer ones stays, counted
   * against the bound, until it reaches the head (as for concurrent writers).
   */
  @Override
  public boolean recordAt(long now, long atMillis, double[] values) {
    trim(now);
    if (now - atMillis >= windowMillis) {
      return false;
    }
    int n = values.length;
    for (;;) {
      int held = size.get();
      if (held > maxValues - n) {
        throw new CapacityExceededException("exact window '" + name + "' holds " + held
            + " values for this key and may hold at most " + maxValues + " (maxValues); "
            + n + " more refused, nothing recorded");
      }
      if (size.compareAndSet(held, held + n)) {
        break;
      }
    }
    for (double v : values) {
      entries.add(new Entry(atMillis, v));
    }
    return true;
  }

  private void trim(long now) {
    Entry head;
    while ((head = entries.peek()) != null && now - head.time >= windowMillis) {
      if (entries.remove(head)) {
        size.decrementAndGet();
      }
    }
  }

  @Override
  public Summary summary(long now) {
    double[] values = new double[16];
    int n = 0;
    for (Entry e : entries) {
      if (now - e.time < windowMillis) {
        if (n == values.length) {
          values = Arrays.copyOf(values, n * 2);
        }
        values[n++] = e.value;
      }
    }
    return Summary.ofValues(Arrays.copyOf(values, n));
  }
}
