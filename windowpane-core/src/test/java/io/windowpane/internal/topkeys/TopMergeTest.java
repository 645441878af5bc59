package io.windowpane.internal.topkeys;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.TopKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Merging sketches that each saw a random part of a Zipf stream (as stripes and panes do). */
class TopMergeTest {

  @Test
  void randomPartsOfZipfStreams_mergeWithinNOverK() {
    for (long seed = 1; seed <= 20; seed++) {
      int parts = 1 + (int) (seed % 8);
      int k = 8 + (int) (seed * 11 % 50);
      Zipf zipf = new Zipf(3_000, 0.7 + 0.04 * seed, seed);
      List<SpaceSaving> sketches = new ArrayList<>();
      for (int i = 0; i < parts; i++) {
        sketches.add(new SpaceSaving(k));
      }
      Map<String, Long> exact = new HashMap<>();
      long n = 0;
      for (int i = 0; i < 30_000; i++) {
        String key = zipf.next();
        sketches.get(zipf.random().nextInt(parts)).offer(key, 1);
        exact.merge(key, 1L, Long::sum);
        n++;
      }
      List<SpaceSaving.Snapshot> snapshots = new ArrayList<>();
      for (SpaceSaving s : sketches) {
        snapshots.add(s.snapshot());
      }
      List<TopKey> top = TopMerge.top(snapshots, Integer.MAX_VALUE);
      Map<String, TopKey> reported = new HashMap<>();
      for (TopKey t : top) {
        assertThat(exact.getOrDefault(t.key(), 0L)).as("seed %d key %s", seed, t.key())
            .isBetween(t.lowerBound(), t.count());
        assertThat(t.maxError()).isLessThanOrEqualTo(n / k);
        reported.put(t.key(), t);
      }
      for (Map.Entry<String, Long> e : exact.entrySet()) {
        if (e.getValue() > n / k) {
          assertThat(reported).as("heavy key %s, seed %d", e.getKey(), seed)
              .containsKey(e.getKey());
        }
      }
      assertThat(TopMerge.top(snapshots, 3)).containsExactlyElementsOf(top.subList(0, 3));
    }
  }

  @Test
  void nothingToMerge_isEmpty() {
    assertThat(TopMerge.top(List.of(), 10)).isEmpty();
  }
}
