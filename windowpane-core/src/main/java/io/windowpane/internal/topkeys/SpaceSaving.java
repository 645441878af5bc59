package io.windowpane.internal.topkeys;

import java.util.HashMap;

/*
 * Design note: Space-Saving (Metwally, Agrawal, El Abbadi, "Efficient computation of frequent and
 * top-k elements in data streams", ICDT 2005) over weighted events.
 *
 * k counters, each (key, count, error). An event for a monitored key adds its weight to that
 * key's counter. An event for an unmonitored key takes a free counter if there is one (error 0);
 * otherwise it takes over the counter with the smallest count m: the old key is forgotten, the
 * counter keeps m as the new key's error and adds the weight. Invariants, for N the total weight
 * offered:
 *   - the counts sum to N (every weight lands in exactly one counter);
 *   - for a monitored key x, count(x) - error(x) <= f(x) <= count(x);
 *   - an unmonitored key has f(x) <= min, and min <= N / k (k counters summing to N).
 * So every key with f(x) > N / k is monitored, and no count over-estimates by more than N / k.
 *
 * Why this sketch: it is deterministic (the bound holds for every stream, which a seeded test can
 * check exactly), its estimates only ever over-count (so "count" is an upper bound and
 * "count - maxError" a lower bound), and its snapshots merge with a bound that adds up (see
 * TopMerge). Count-Min needs a separate key list to answer "which keys" and errs by a
 * probability; Misra-Gries under-counts, which reads worse on a dashboard of offenders.
 *
 * Layout: parallel arrays indexed by counter slot, a binary min-heap of slots by count (the
 * counter to take over is heap[0]; a counter only grows, so an update sifts down), and a HashMap
 * from key to slot. offer is O(log k) plus one hash lookup; a key seen before allocates nothing.
 * Not thread-safe: TopKeysRing guards each sketch with its own lock.
 */
/** A Space-Saving heavy-hitters sketch of {@code k} counters over weighted events. */
final class SpaceSaving {

  private final String[] keys;
  private final long[] counts;
  private final long[] errors;
  private final int[] heap; // slots, a min-heap by counts
  private final int[] position; // slot -> its index in heap
  private final HashMap<String, Integer> slots;
  private int size;
  private long total;

  SpaceSaving(int k) {
    keys = new String[k];
    counts = new long[k];
    errors = new long[k];
    heap = new int[k];
    position = new int[k];
    slots = new HashMap<>(Math.min(k, 64) * 2);
  }

  /** Counts {@code weight} (at least 1) more events for {@code key}. */
  void offer(String key, long weight) {
    total = saturatedAdd(total, weight);
    Integer slot = slots.get(key);
    if (slot != null) {
      int s = slot;
      counts[s] = saturatedAdd(counts[s], weight);
      siftDown(position[s]);
      return;
    }
    if (size < keys.length) {
      int s = size++;
      keys[s] = key;
      counts[s] = weight;
      errors[s] = 0;
      heap[s] = s;
      position[s] = s;
      slots.put(key, s);
      siftUp(s);
      return;
    }
    int s = heap[0];
    slots.remove(keys[s]);
    keys[s] = key;
    errors[s] = counts[s];
    counts[s] = saturatedAdd(counts[s], weight);
    slots.put(key, s);
    siftDown(0);
  }

  /** The count any unmonitored key may have had at most: the smallest count, 0 while not full. */
  long min() {
    return size < keys.length ? 0 : counts[heap[0]];
  }

  /** Total weight offered. */
  long total() {
    return total;
  }

  /** Monitored keys. */
  int size() {
    return size;
  }

  /** A copy of the counters, for merging outside the sketch's lock. */
  Snapshot snapshot() {
    String[] k = new String[size];
    long[] c = new long[size];
    long[] e = new long[size];
    System.arraycopy(keys, 0, k, 0, size);
    System.arraycopy(counts, 0, c, 0, size);
    System.arraycopy(errors, 0, e, 0, size);
    return new Snapshot(k, c, e, min(), total);
  }

  private void siftUp(int i) {
    int s = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      int p = heap[parent];
      if (counts[p] <= counts[s]) {
        break;
      }
      place(i, p);
      i = parent;
    }
    place(i, s);
  }

  private void siftDown(int i) {
    int s = heap[i];
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int c = heap[child];
      int right = child + 1;
      if (right < size && counts[heap[right]] < counts[c]) {
        child = right;
        c = heap[child];
      }
      if (counts[s] <= counts[c]) {
        break;
      }
      place(i, c);
      i = child;
    }
    place(i, s);
  }

  private void place(int i, int slot) {
    heap[i] = slot;
    position[slot] = i;
  }

  static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  /**
   * The counters of one sketch at one instant: keys with their counts and errors, the smallest
   * count ({@code min}, 0 while the sketch had free counters) and the total weight.
   */
  record Snapshot(String[] keys, long[] counts, long[] errors, long min, long total) {}
}
