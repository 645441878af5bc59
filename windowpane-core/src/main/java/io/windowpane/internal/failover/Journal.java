package io.windowpane.internal.failover;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/*
 * The events one store's fallbacks took, awaiting replay into the members before them.
 *
 * A batch holds the events of one key taken at one millisecond by one member: adds and acquires
 * sum their counts, records append their values, so a hot key costs one batch per millisecond,
 * not one per event. A batch is open until its first replay is sent; later events then start a
 * new batch. Each batch carries an id unique in the fleet (the chain's random node id and a
 * sequence number): the engine replayed into ignores an id it has seen, so a replay whose answer
 * was lost can be sent again.
 *
 * `needs` is a bit set of the members the batch must still reach: those before the member that
 * took it, and able to take replays. A replay into member m clears the bits of m and of every
 * member after it (once an earlier member has the events, the later ones are only fallbacks);
 * an empty set removes the batch. Batches no window holds any more (older than the store's
 * expiry) are dropped and counted.
 *
 * Thread-safety: each key's deque is guarded by its own monitor; the map is concurrent.
 */
final class Journal {

  /** One key's events at one millisecond from one member. */
  static final class Batch {
    final String id;
    final long atMillis;
    final int takenBy;
    int needs;
    long count;
    double[] values; // statistics: the recorded values, `count` of them used
    boolean sealed;

    Batch(String id, long atMillis, int takenBy, int needs) {
      this.id = id;
      this.atMillis = atMillis;
      this.takenBy = takenBy;
      this.needs = needs;
    }

    double[] values() {
      return Arrays.copyOf(values, (int) count);
    }
  }

  /** A batch to send, with its key. */
  record Pending(String key, Batch batch) {}

  private final Map<String, ArrayDeque<Batch>> byKey = new ConcurrentHashMap<>();
  private final String nodeId;
  private final AtomicLong sequence;
  private final AtomicLong size;
  private final long limit;
  final long expiryMillis;
  final Counters counters;

  Journal(String nodeId, AtomicLong sequence, AtomicLong size, long limit, long expiryMillis,
      Counters counters) {
    this.nodeId = nodeId;
    this.sequence = sequence;
    this.size = size;
    this.limit = limit;
    this.expiryMillis = expiryMillis;
    this.counters = counters;
  }

  /** Notes {@code count} events (or {@code values}) of {@code key} taken by member {@code by}. */
  void add(String key, long atMillis, int by, int needs, long count, double[] values) {
    if (needs == 0) {
      counters.lost.addAndGet(values == null ? count : values.length);
      return;
    }
    for (;;) {
      ArrayDeque<Batch> deque = byKey.computeIfAbsent(key, k -> new ArrayDeque<>());
      synchronized (deque) {
        if (byKey.get(key) != deque) {
          continue; // emptied and removed by a replay meanwhile: a batch here would be orphaned
        }
        append(deque, atMillis, by, needs, count, values);
        return;
      }
    }
  }

  /** Adds to the tail batch of {@code deque} if it matches, else to a new one; under its lock. */
  private void append(ArrayDeque<Batch> deque, long atMillis, int by, int needs, long count,
      double[] values) {
    Batch tail = deque.peekLast();
    if (tail == null || tail.sealed || tail.atMillis != atMillis || tail.takenBy != by
        || tail.needs != needs) {
      if (size.get() >= limit) {
        counters.lost.addAndGet(values == null ? count : values.length);
        return;
      }
      size.incrementAndGet();
      counters.journaled.incrementAndGet();
      tail = new Batch(nodeId + "-" + Long.toString(sequence.incrementAndGet(), 36), atMillis,
          by, needs);
      deque.addLast(tail);
    }
    if (values == null) {
      tail.count += count;
    } else {
      int n = (int) tail.count;
      if (tail.values == null) {
        tail.values = new double[Math.max(8, values.length)];
      } else if (n + values.length > tail.values.length) {
        tail.values = Arrays.copyOf(tail.values, Math.max(n + values.length, 2 * n));
      }
      System.arraycopy(values, 0, tail.values, n, values.length);
      tail.count += values.length;
    }
  }

  /**
   * Seals and returns the batches that must reach member {@code m}, dropping those older than
   * the expiry at {@code nowMillis}.
   */
  List<Pending> pendingFor(int m, long nowMillis) {
    List<Pending> out = new ArrayList<>();
    for (Map.Entry<String, ArrayDeque<Batch>> e : byKey.entrySet()) {
      ArrayDeque<Batch> deque = e.getValue();
      synchronized (deque) {
        for (Iterator<Batch> it = deque.iterator(); it.hasNext(); ) {
          Batch b = it.next();
          if (b.atMillis <= nowMillis - expiryMillis) {
            it.remove();
            size.decrementAndGet();
            counters.dropped.addAndGet(b.count);
          } else if ((b.needs & (1 << m)) != 0) {
            b.sealed = true;
            out.add(new Pending(e.getKey(), b));
          }
        }
        if (deque.isEmpty()) {
          byKey.remove(e.getKey(), deque);
        }
      }
    }
    return out;
  }

  /**
   * Member {@code m} has {@code batch} (or {@code refused} it for good): it and the members after
   * it need it no more.
   */
  void delivered(String key, Batch batch, int m, boolean refused) {
    ArrayDeque<Batch> deque = byKey.get(key);
    if (deque == null) {
      return;
    }
    synchronized (deque) {
      batch.needs &= (1 << m) - 1;
      if (refused) {
        counters.lost.addAndGet(batch.count);
      }
      if (batch.needs == 0 && deque.remove(batch)) {
        size.decrementAndGet();
        if (!refused) {
          counters.replayed.addAndGet(batch.count);
        }
        if (deque.isEmpty()) {
          byKey.remove(key, deque);
        }
      }
    }
  }

  /** Events awaiting replay into member {@code m}. */
  long pendingEvents(int m) {
    long n = 0;
    for (ArrayDeque<Batch> deque : byKey.values()) {
      synchronized (deque) {
        for (Batch b : deque) {
          if ((b.needs & (1 << m)) != 0) {
            n += b.count;
          }
        }
      }
    }
    return n;
  }

  /** The chain's counters, shared by its journals. */
  static final class Counters {
    final AtomicLong journaled = new AtomicLong();
    final AtomicLong replayed = new AtomicLong();
    final AtomicLong dropped = new AtomicLong();
    final AtomicLong lost = new AtomicLong();
  }
}
