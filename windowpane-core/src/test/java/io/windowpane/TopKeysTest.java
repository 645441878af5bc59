package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/** top(n) of counters, limiters and statistics windows on the local engine. */
class TopKeysTest {

  /** An awkward start: before zero, off a pane edge. */
  private static final long START = -7_777_777;

  private final ManualClock clock = ManualClock.at(START);
  private final Windowpane wp = Windowpane.localBuilder().clock(clock).build();

  @Test
  void counter_zipfKeysOverTime_topWithinErrorOfTheExactWindowCount() {
    WindowSpec spec = WindowSpec.panes(Duration.ofSeconds(10), 10).withTopKeys(30);
    WindowCounter counter = wp.counter("hits", spec);
    Random random = new Random(18);
    double[] cdf = zipf(1_000, 1.0);
    ArrayDeque<long[]> events = new ArrayDeque<>(); // pane, key index, n
    for (int step = 0; step < 30_000; step++) {
      clock.advance(random.nextInt(3));
      int k = pick(cdf, random);
      long n = 1 + random.nextInt(2);
      counter.add("user:" + k, n);
      events.add(new long[] {Math.floorDiv(clock.millis(), 1_000), k, n});
      if (step % 1_009 == 0) {
        long pe = Math.floorDiv(clock.millis(), 1_000);
        while (!events.isEmpty() && events.peekFirst()[0] <= pe - 10) {
          events.pollFirst();
        }
        Map<String, Long> exact = new HashMap<>();
        long total = 0;
        for (long[] e : events) {
          exact.merge("user:" + e[1], e[2], Long::sum);
          total += e[2];
        }
        List<TopKey> top = counter.top(30).orElseThrow();
        assertThat(top).isNotEmpty();
        for (TopKey t : top) {
          long truth = exact.getOrDefault(t.key(), 0L);
          assertThat(truth).as("%s at step %d", t.key(), step)
              .isBetween(t.lowerBound(), t.count());
          assertThat(t.maxError()).isLessThanOrEqualTo(total / 30);
          // the sketch's count agrees with the window's own exact count within the error
          assertThat(counter.count(t.key())).isBetween(t.lowerBound(), t.count());
        }
        long heaviest = exact.values().stream().mapToLong(Long::longValue).max().orElse(0);
        assertThat(top.get(0).count()).isGreaterThanOrEqualTo(heaviest);
      }
    }
    // every pane expires: nothing left to rank
    clock.advance(10_000);
    assertThat(counter.top(5)).contains(List.of());
  }

  @Test
  void limiter_ranksAllowedPermitsAndDeniedRequests_exactlyWithFewKeys() {
    RateLimiter limiter = wp.limiter("api", Quota.of(
        Limit.of(5, WindowSpec.panes(Duration.ofSeconds(1), 10)),
        Limit.of(100, WindowSpec.log(Duration.ofMinutes(1)))).withTopKeys(10));
    for (int i = 0; i < 8; i++) {
      limiter.tryAcquire("alice");
    }
    limiter.tryAcquire("bob", 2);
    limiter.tryConsume("carol", 5);
    limiter.tryConsume("carol", 1);
    assertThat(limiter.top(10)).contains(List.of(
        new TopKey("alice", 5, 0), new TopKey("carol", 5, 0), new TopKey("bob", 2, 0)));
    assertThat(limiter.topDenied(10)).contains(List.of(
        new TopKey("alice", 3, 0), new TopKey("carol", 1, 0)));
    assertThat(limiter.topDenied(1)).contains(List.of(new TopKey("alice", 3, 0)));
    clock.advance(1_000); // the first limit's window (1 s) has moved past all of it
    assertThat(limiter.top(10)).contains(List.of());
    assertThat(limiter.topDenied(10)).contains(List.of());
  }

  @Test
  void stats_ranksKeysByValuesRecorded() {
    WindowStats stats = wp.stats("latency",
        StatsSpec.histogram(Duration.ofMinutes(1), 12).withTopKeys(4));
    stats.record("m:1", 3.0);
    stats.recordAll("m:2", 1.0, 2.0, 3.0);
    stats.record("m:1", 4.0);
    WindowStats exact = wp.stats("amounts", StatsSpec.exact(Duration.ofSeconds(10)).withTopKeys());
    exact.recordAll("card", 1, 2);
    assertThat(stats.top(4)).contains(List.of(new TopKey("m:2", 3, 0), new TopKey("m:1", 2, 0)));
    assertThat(exact.top(1)).contains(List.of(new TopKey("card", 2, 0)));
  }

  @Test
  void topKeysOff_isEmptyAndTheStoreIsThePlainOne() {
    WindowCounter counter = wp.counter("plain", WindowSpec.panes(Duration.ofSeconds(1), 10));
    counter.add("a");
    assertThat(counter.top(10)).isEmpty();
    RateLimiter limiter = wp.limiter("plain", Limit.of(3, WindowSpec.weighted(Duration.ofSeconds(1))));
    assertThat(limiter.top(1)).isEmpty();
    assertThat(limiter.topDenied(1)).isEmpty();
    assertThat(wp.stats("plain", StatsSpec.histogram(Duration.ofSeconds(1), 1)).top(1)).isEmpty();
  }

  @Test
  void badN_throwsNamingTheArgumentAndRange() {
    WindowCounter counter = wp.counter("c", WindowSpec.panes(Duration.ofSeconds(1), 10)
        .withTopKeys(20));
    counter.add("a");
    assertThatThrownBy(() -> counter.top(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("n must be").hasMessageContaining("20");
    assertThatThrownBy(() -> counter.top(21)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("n must be");
    RateLimiter limiter = wp.limiter("l", Quota.of(
        Limit.of(3, WindowSpec.panes(Duration.ofSeconds(1), 1))).withTopKeys(5));
    assertThatThrownBy(() -> limiter.topDenied(6)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("n must be");
    RateLimiter off = wp.limiter("off", Limit.of(3, WindowSpec.panes(Duration.ofSeconds(1), 1)));
    assertThatThrownBy(() -> off.top(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("n must be");
    assertThat(counter.top(20).orElseThrow()).containsExactly(new TopKey("a", 1, 0));
  }

  @Test
  void badCounters_andTopKeysOnALimitsWindow_areRefused() {
    WindowSpec w = WindowSpec.panes(Duration.ofSeconds(1), 10);
    assertThatThrownBy(() -> w.withTopKeys(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("counters must be");
    assertThatThrownBy(() -> w.withTopKeys(TopKey.MAX_COUNTERS + 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("counters");
    assertThatThrownBy(() -> Quota.of(Limit.of(3, w.withTopKeys())))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Quota.withTopKeys");
    assertThatThrownBy(() -> StatsSpec.histogram(Duration.ofSeconds(1), 1).withTopKeys(-2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("counters");
    assertThat(w.withTopKeys()).isNotEqualTo(w);
    assertThat(w.withTopKeys().withoutTopKeys()).isEqualTo(w);
    assertThat(w.withTopKeys().topKeys()).isEqualTo(TopKey.DEFAULT_COUNTERS);
  }

  @Test
  void threadsAcquiring_allowedPermitsPerKeyAreExact() throws Exception {
    RateLimiter limiter = wp.limiter("conc", Quota.of(
        Limit.of(50_000, WindowSpec.panes(Duration.ofSeconds(10), 10))).withTopKeys(16));
    int threads = 4;
    int rounds = 20_000;
    AtomicLongArray allowed = new AtomicLongArray(8);
    AtomicLongArray denied = new AtomicLongArray(8);
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        for (int r = 0; r < rounds; r++) {
          int k = (r + id) % 8;
          if (limiter.tryConsume("k" + k, 1 + k)) {
            allowed.addAndGet(k, 1 + k);
          } else {
            denied.incrementAndGet(k);
          }
        }
      });
      thread.start();
      all.add(thread);
    }
    for (Thread thread : all) {
      thread.join();
    }
    Map<String, Long> top = new HashMap<>();
    for (TopKey t : limiter.top(16).orElseThrow()) {
      assertThat(t.maxError()).isZero();
      top.put(t.key(), t.count());
    }
    Map<String, Long> expected = new HashMap<>();
    long sumDenied = 0;
    for (int k = 0; k < 8; k++) {
      if (allowed.get(k) > 0) {
        expected.put("k" + k, allowed.get(k));
      }
      sumDenied += denied.get(k);
    }
    assertThat(top).isEqualTo(expected);
    assertThat(sumDenied).as("keys 5 to 7 ask more than 50,000 permits").isPositive();
    assertThat(limiter.topDenied(16).orElseThrow().stream().mapToLong(TopKey::count).sum())
        .isEqualTo(sumDenied);
  }

  static double[] zipf(int keys, double s) {
    double[] cdf = new double[keys];
    double sum = 0;
    for (int i = 0; i < keys; i++) {
      sum += 1 / Math.pow(i + 1, s);
      cdf[i] = sum;
    }
    for (int i = 0; i < keys; i++) {
      cdf[i] /= sum;
    }
    return cdf;
  }

  static int pick(double[] cdf, Random random) {
    int i = Arrays.binarySearch(cdf, random.nextDouble());
    return i >= 0 ? i : Math.min(cdf.length - 1, -i - 1);
  }
}
