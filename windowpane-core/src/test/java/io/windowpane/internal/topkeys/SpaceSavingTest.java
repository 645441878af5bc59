package io.windowpane.internal.topkeys;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Space-Saving against exact counts of seeded Zipf streams. */
class SpaceSavingTest {

  @Test
  void zipfStreams_everyEstimateWithinItsErrorAndTheBound() {
    for (long seed = 1; seed <= 20; seed++) {
      double exponent = 0.6 + 0.1 * (seed % 8); // 0.6 (flat) to 1.3 (skewed)
      int k = 10 + (int) (seed * 7 % 90);
      Zipf zipf = new Zipf(5_000, exponent, seed);
      SpaceSaving sketch = new SpaceSaving(k);
      Map<String, Long> exact = new HashMap<>();
      long n = 0;
      for (int i = 0; i < 50_000; i++) {
        String key = zipf.next();
        long weight = 1 + zipf.random().nextInt(3);
        sketch.offer(key, weight);
        exact.merge(key, weight, Long::sum);
        n += weight;
      }
      SpaceSaving.Snapshot s = sketch.snapshot();
      assertThat(s.total()).isEqualTo(n);
      assertThat(s.min()).as("min <= N/k, seed %d", seed).isLessThanOrEqualTo(n / k);
      long sum = 0;
      Map<String, Long> monitored = new HashMap<>();
      for (int i = 0; i < s.keys().length; i++) {
        long truth = exact.get(s.keys()[i]);
        assertThat(truth).as("seed %d key %s", seed, s.keys()[i])
            .isBetween(s.counts()[i] - s.errors()[i], s.counts()[i]);
        assertThat(s.errors()[i]).isLessThanOrEqualTo(s.min());
        sum += s.counts()[i];
        monitored.put(s.keys()[i], s.counts()[i]);
      }
      assertThat(sum).as("counts sum to N").isEqualTo(n);
      for (Map.Entry<String, Long> e : exact.entrySet()) {
        if (!monitored.containsKey(e.getKey())) {
          assertThat(e.getValue()).as("unmonitored %s, seed %d", e.getKey(), seed)
              .isLessThanOrEqualTo(s.min());
        }
        if (e.getValue() > n / k) {
          assertThat(monitored).as("heavy key %s, seed %d", e.getKey(), seed)
              .containsKey(e.getKey());
        }
      }
    }
  }

  @Test
  void fewerKeysThanCounters_countsAreExact() {
    SpaceSaving sketch = new SpaceSaving(4);
    sketch.offer("a", 3);
    sketch.offer("b", 1);
    sketch.offer("a", 2);
    sketch.offer("c", 7);
    SpaceSaving.Snapshot s = sketch.snapshot();
    assertThat(s.min()).isZero();
    Map<String, Long> counts = new HashMap<>();
    for (int i = 0; i < s.keys().length; i++) {
      counts.put(s.keys()[i], s.counts()[i]);
      assertThat(s.errors()[i]).isZero();
    }
    assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of("a", 5L, "b", 1L, "c", 7L));
  }

  @Test
  void fullSketch_newKeyTakesOverTheSmallestCounter() {
    SpaceSaving sketch = new SpaceSaving(2);
    sketch.offer("a", 5);
    sketch.offer("b", 2);
    sketch.offer("c", 1); // replaces b: count 3, error 2
    SpaceSaving.Snapshot s = sketch.snapshot();
    Map<String, long[]> byKey = new HashMap<>();
    for (int i = 0; i < s.keys().length; i++) {
      byKey.put(s.keys()[i], new long[] {s.counts()[i], s.errors()[i]});
    }
    assertThat(byKey).containsOnlyKeys("a", "c");
    assertThat(byKey.get("c")).containsExactly(3, 2);
    assertThat(s.min()).isEqualTo(3);
  }
}
