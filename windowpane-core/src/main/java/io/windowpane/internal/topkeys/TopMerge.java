package io.windowpane.internal.topkeys;

import io.windowpane.TopKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/*
 * Design note: merging Space-Saving snapshots (one per pane and stripe) into one ranking.
 *
 * Each snapshot j saw a part N_j of the window's events, and for every key x its counter gives
 * c_j(x) - e_j(x) <= f_j(x) <= c_j(x) when x is monitored, 0 <= f_j(x) <= m_j (its smallest
 * count) when not. The true window count is f(x) = sum_j f_j(x), so with
 *   count(x) = sum_j (c_j(x) if monitored in j, else m_j)
 *   low(x)   = sum_j (c_j(x) - e_j(x) if monitored in j, else 0)
 * we have low(x) <= f(x) <= count(x), and maxError(x) = count(x) - low(x) is at most
 * sum_j m_j <= sum_j N_j / k = N / k. A key with f(x) > sum_j m_j is monitored somewhere, so the
 * union of the monitored keys holds every key above N / k. The bound is the single sketch's:
 * cutting the stream into panes and stripes costs nothing in the worst case (each part's min is
 * at most its own share of N / k), though a key spread thin over many parts collects each part's
 * min into its maxError. Ranking is by count (the upper bound), ties by key.
 */
/** Merges sketch snapshots into the heaviest keys with their over-count bounds. */
final class TopMerge {

  private TopMerge() {}

  /** The {@code n} keys with the largest merged counts, largest first. */
  static List<TopKey> top(List<SpaceSaving.Snapshot> parts, int n) {
    long minSum = 0;
    int entries = 0;
    for (SpaceSaving.Snapshot s : parts) {
      minSum = SpaceSaving.saturatedAdd(minSum, s.min());
      entries += s.keys().length;
    }
    // per key: [count above the mins it replaces, low]
    HashMap<String, long[]> merged = new HashMap<>(Math.max(16, entries * 2));
    for (SpaceSaving.Snapshot s : parts) {
      String[] keys = s.keys();
      for (int i = 0; i < keys.length; i++) {
        long[] m = merged.computeIfAbsent(keys[i], k -> new long[2]);
        m[0] += s.counts()[i] - s.min();
        m[1] += s.counts()[i] - s.errors()[i];
      }
    }
    List<TopKey> all = new ArrayList<>(merged.size());
    for (var e : merged.entrySet()) {
      long count = SpaceSaving.saturatedAdd(minSum, e.getValue()[0]);
      long low = Math.min(count, e.getValue()[1]);
      all.add(new TopKey(e.getKey(), count, count - low));
    }
    all.sort((a, b) -> a.count() != b.count() ? Long.compare(b.count(), a.count())
        : a.key().compareTo(b.key()));
    return all.size() <= n ? List.copyOf(all) : List.copyOf(all.subList(0, n));
  }
}
