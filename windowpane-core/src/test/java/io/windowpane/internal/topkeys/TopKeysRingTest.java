package io.windowpane.internal.topkeys;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.TopKey;
import io.windowpane.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/**
 * The ring of per-pane sketches against an exact model of the pane window: seeded Zipf traffic
 * over many panes, merges across panes and stripes, pane expiry, and exact totals under threads.
 */
class TopKeysRingTest {

  private static final long PANE = 1_000;
  private static final int PANES = 10;
  /** A clock start on an awkward instant: before zero, not on a pane edge. */
  private static final long START = -123_457;

  /** The largest maxError seen, as a fraction of N / k, over the randomized runs. */
  static double worstErrorShare;

  @Test
  void zipfTrafficOverManyPanes_everyKeyWithinItsErrorAndHeavyKeysReported() {
    double worst = 0;
    for (long seed = 1; seed <= 12; seed++) {
      int k = 20 + (int) (seed * 13 % 60);
      TopKeysRing ring = new TopKeysRing(WindowSpec.panes(Duration.ofMillis(PANE * PANES), PANES), k);
      Zipf zipf = new Zipf(2_000, 0.8 + 0.05 * seed, seed);
      List<long[]> times = new ArrayList<>(); // event time, key index
      List<String> keys = new ArrayList<>();
      long now = START;
      for (int step = 0; step < 40_000; step++) {
        now += zipf.random().nextInt(3); // 40,000 events over ~40 s: 4 windows
        String key = zipf.next();
        ring.offer(key, 1, now);
        times.add(new long[] {now});
        keys.add(key);
        if (step % 997 == 0) {
          worst = Math.max(worst, check(ring, times, keys, now, k, seed));
        }
      }
      worst = Math.max(worst, check(ring, times, keys, now, k, seed));
    }
    worstErrorShare = worst;
    System.out.printf("TopKeysRingTest: largest maxError = %.3f x N/k%n", worst);
    assertThat(worst).isLessThanOrEqualTo(1.0);
  }

  /** Checks the ring at {@code now}; returns the largest maxError / (N / k). */
  private static double check(TopKeysRing ring, List<long[]> times, List<String> keys, long now,
      int k, long seed) {
    long pe = Math.floorDiv(now, PANE);
    Map<String, Long> exact = new HashMap<>();
    long n = 0;
    for (int i = 0; i < times.size(); i++) {
      long p = Math.floorDiv(times.get(i)[0], PANE);
      if (p > pe - PANES && p <= pe) {
        exact.merge(keys.get(i), 1L, Long::sum);
        n++;
      }
    }
    List<TopKey> top = ring.top(Integer.MAX_VALUE, now);
    Map<String, TopKey> reported = new HashMap<>();
    double worst = 0;
    long bound = n / k;
    for (TopKey t : top) {
      long truth = exact.getOrDefault(t.key(), 0L);
      assertThat(truth).as("seed %d key %s at %d", seed, t.key(), now)
          .isBetween(t.lowerBound(), t.count());
      assertThat(t.maxError()).as("seed %d: maxError <= N/k", seed).isLessThanOrEqualTo(bound);
      if (bound > 0) {
        worst = Math.max(worst, (double) t.maxError() / bound);
      }
      reported.put(t.key(), t);
    }
    for (Map.Entry<String, Long> e : exact.entrySet()) {
      if (e.getValue() > bound) {
        assertThat(reported).as("heavy key %s (%d > N/k = %d), seed %d", e.getKey(),
            e.getValue(), bound, seed).containsKey(e.getKey());
      }
    }
    for (int i = 1; i < top.size(); i++) {
      assertThat(top.get(i - 1).count()).isGreaterThanOrEqualTo(top.get(i).count());
    }
    return worst;
  }

  @Test
  void panesMergeAndExpire() {
    TopKeysRing ring = new TopKeysRing(WindowSpec.panes(Duration.ofSeconds(3), 3), 4);
    long t = 30_000; // pane 30
    ring.offer("a", 5, t);
    ring.offer("b", 1, t);
    ring.offer("a", 2, t + 1_000); // pane 31
    ring.offer("c", 4, t + 2_000); // pane 32
    assertThat(ring.top(10, t + 2_999)).containsExactly(
        new TopKey("a", 7, 0), new TopKey("c", 4, 0), new TopKey("b", 1, 0));
    // pane 30 leaves the window at 33 000
    assertThat(ring.top(10, t + 3_000)).containsExactly(
        new TopKey("c", 4, 0), new TopKey("a", 2, 0));
    assertThat(ring.top(1, t + 3_000)).containsExactly(new TopKey("c", 4, 0));
    assertThat(ring.top(10, t + 5_000)).isEmpty();
    // the slot of pane 30 is reused by pane 36 afresh
    ring.offer("d", 1, t + 6_000);
    assertThat(ring.top(10, t + 6_000)).containsExactly(new TopKey("d", 1, 0));
  }

  @Test
  void logAndWeightedWindows_getTenPanes() {
    TopKeysRing ring = new TopKeysRing(WindowSpec.log(Duration.ofSeconds(10)), 4);
    ring.offer("a", 1, 0);
    ring.offer("a", 1, 9_999);
    assertThat(ring.top(1, 9_999)).containsExactly(new TopKey("a", 2, 0));
    assertThat(ring.top(1, 10_000)).containsExactly(new TopKey("a", 1, 0));
  }

  @Test
  void threadsOfferingFewerKeysThanCounters_totalsAreExact() throws Exception {
    TopKeysRing ring = new TopKeysRing(WindowSpec.panes(Duration.ofSeconds(1), 1), 8);
    int threads = 4;
    int rounds = 20_000;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Thread> all = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      int id = i;
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        for (int r = 0; r < rounds; r++) {
          ring.offer("k" + (r % 8), 1 + (id % 2), 500);
        }
      });
      thread.start();
      all.add(thread);
    }
    for (Thread thread : all) {
      thread.join();
    }
    // 8 keys, each offered rounds/8 times by each thread, weight 1 by two threads and 2 by two
    long each = (long) rounds / 8 * (1 + 2 + 1 + 2);
    List<TopKey> top = ring.top(8, 500);
    assertThat(top).hasSize(8);
    for (TopKey t : top) {
      assertThat(t.count()).as(t.key()).isEqualTo(each);
      assertThat(t.maxError()).isZero();
    }
  }
}
