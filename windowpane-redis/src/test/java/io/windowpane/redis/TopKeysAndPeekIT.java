package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.TopKey;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * On one redis-server: wp_peek answers what the next acquire decides and
 * writes nothing; the top-keys sketch (wp_topadd, wp_top) ranks seeded Zipf traffic within the
 * stated bound against an exact count over the sketch's pane window, and expires with it.
 */
@ExtendWith(RedisServerExtension.class)
class TopKeysAndPeekIT {

  static final long T = 1_700_000_000_000L;
  private static final Duration SECOND = Duration.ofSeconds(1);

  private final RedisServer redis;

  TopKeysAndPeekIT(RedisServer redis) {
    this.redis = redis;
  }

  /** Every key of limiter {@code name}, with its DUMP, and the largest PTTL among them. */
  private static Map<String, String> state(RespClient c, String name) {
    Map<String, String> out = new TreeMap<>();
    for (Object key : (List<?>) c.command("KEYS", "wp1:r:{" + name + ":*")) {
      out.put((String) key, String.valueOf(c.command("DUMP", (String) key)));
    }
    return out;
  }

  private static long maxTtl(RespClient c, Iterable<String> keys) {
    long max = -2;
    for (String key : keys) {
      Object ttl = c.command("PTTL", key);
      max = Math.max(max, ttl instanceof Long l ? l : Long.parseLong(String.valueOf(ttl)));
    }
    return max;
  }

  static List<Quota> peekQuotas() {
    return List.of(Quota.of(Limit.of(6, WindowSpec.panes(SECOND, 10))),
        Quota.of(Limit.of(6, WindowSpec.weighted(SECOND))),
        Quota.of(Limit.of(6, WindowSpec.log(SECOND))),
        Quota.of(Limit.of(5, WindowSpec.panes(SECOND, 10)),
            Limit.of(12, WindowSpec.log(Duration.ofSeconds(3)))));
  }

  /**
   * Random traffic (seeded): before each tryAcquire, peek for the same key and permits at the
   * same instant answers exactly the decision, and leaves every key as it was.
   */
  static void peekEqualsTheNextAcquire(Windowpane wp, ManualClock clock, RespClient c,
      String prefix, long seed) {
    Random random = new Random(seed);
    List<Quota> quotas = peekQuotas();
    for (int q = 0; q < quotas.size(); q++) {
      String name = prefix + q;
      RateLimiter limiter = wp.limiter(name, quotas.get(q));
      for (int step = 0; step < 300; step++) {
        String key = "k" + random.nextInt(4);
        long permits = 1 + random.nextInt(3);
        Map<String, String> before = c == null ? null : state(c, name);
        long ttlBefore = c == null ? 0 : maxTtl(c, before.keySet());
        Decision peek = limiter.peek(key, permits).orElseThrow();
        if (c != null) {
          assertThat(state(c, name)).as("%s step %d: peek wrote nothing", name, step)
              .isEqualTo(before);
          assertThat(maxTtl(c, before.keySet())).isLessThanOrEqualTo(ttlBefore);
        }
        assertThat(limiter.tryAcquire(key, permits)).as("%s step %d", name, step)
            .isEqualTo(peek);
        clock.advance(random.nextInt(random.nextInt(10) == 0 ? 2_500 : 150));
      }
    }
  }

  @Test
  void peek_isTheNextDecision_andWritesNothing_functions() {
    ManualClock clock = ManualClock.at(T);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
        RespClient c = redis.client()) {
      peekEqualsTheNextAcquire(wp, clock, c, "peekf", 18);
    }
  }

  @Test
  void peek_isTheNextDecision_andWritesNothing_evalsha() {
    ManualClock clock = ManualClock.at(T + 3_333);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.EVALSHA);
        RespClient c = redis.client()) {
      peekEqualsTheNextAcquire(wp, clock, c, "peeke", 81);
    }
  }

  /** Keys 0..n-1 drawn with probability proportional to 1 / (i + 1)^s. */
  static final class Zipf {
    private final double[] cdf;
    private final Random random;

    Zipf(int n, double s, Random random) {
      cdf = new double[n];
      double sum = 0;
      for (int i = 0; i < n; i++) {
        sum += 1 / Math.pow(i + 1, s);
        cdf[i] = sum;
      }
      for (int i = 0; i < n; i++) {
        cdf[i] /= sum;
      }
      this.random = random;
    }

    String next() {
      int i = java.util.Arrays.binarySearch(cdf, random.nextDouble());
      return "user:" + (i < 0 ? Math.min(cdf.length - 1, -i - 1) : i);
    }
  }

  /** One fed event: its time, key and weight. */
  record Event(long at, String key, long n) {}

  /** The sketch's panes: a panes window's own, else W / 10 (or W). */
  static long paneMillis(WindowSpec spec) {
    long w = spec.windowMillis();
    if (spec.algorithm() == io.windowpane.Algorithm.SLIDING_PANES) {
      return w / spec.panes();
    }
    return w % 10 == 0 ? w / 10 : w;
  }

  /**
   * Checks a ranking against the exact counts of the events in the sketch's pane window at
   * {@code now}: every ranked key within [count - maxError, count], maxError <= N / k, every key
   * above N / k ranked, ordered by count. Returns N.
   */
  static long checkRanking(List<TopKey> top, List<Event> events, WindowSpec spec, int k,
      long now) {
    long r = paneMillis(spec);
    long panes = spec.windowMillis() / r;
    long cur = Math.floorDiv(now, r);
    Map<String, Long> exact = new HashMap<>();
    long total = 0;
    for (Event e : events) {
      long pane = Math.floorDiv(e.at(), r);
      if (pane > cur - panes && pane <= cur) {
        exact.merge(e.key(), e.n(), Long::sum);
        total += e.n();
      }
    }
    Map<String, TopKey> ranked = new HashMap<>();
    long previous = Long.MAX_VALUE;
    for (TopKey t : top) {
      long truth = exact.getOrDefault(t.key(), 0L);
      assertThat(truth).as("%s at %d (N %d)", t, now, total)
          .isBetween(t.lowerBound(), t.count());
      assertThat(t.maxError() * k).as("%s: maxError <= N / k, N %d", t, total)
          .isLessThanOrEqualTo(total);
      assertThat(t.count()).isLessThanOrEqualTo(previous);
      previous = t.count();
      ranked.put(t.key(), t);
    }
    if (top.size() == k || ranked.size() == exact.size()) {
      for (var e : exact.entrySet()) {
        if (e.getValue() * k > total) {
          assertThat(ranked).as("%s = %d above N / k (N %d)", e.getKey(), e.getValue(), total)
              .containsKey(e.getKey());
        }
      }
    }
    assertThat(exact.keySet()).containsAll(ranked.keySet());
    return total;
  }

  /**
   * Seeded Zipf traffic into a counter, a limiter (allowed and denied) and a statistics window
   * with top keys on; at 12 instants each ranking checked against the exact counts.
   */
  static void zipfWithinTheBound(Windowpane wp, ManualClock clock, String prefix, long seed,
      int events) {
    Random random = new Random(seed);
    int k = 20;
    WindowSpec counterSpec = WindowSpec.panes(Duration.ofSeconds(10), 10).withTopKeys(k);
    WindowCounter counter = wp.counter(prefix + "-hits", counterSpec);
    WindowSpec limitSpec = WindowSpec.weighted(Duration.ofSeconds(10));
    RateLimiter limiter = wp.limiter(prefix + "-api", Quota.of(Limit.of(60, limitSpec))
        .withTopKeys(k));
    StatsSpec statsSpec = StatsSpec.histogram(Duration.ofSeconds(10), 5).withTopKeys(k);
    WindowStats stats = wp.stats(prefix + "-latency", statsSpec);
    Zipf zipf = new Zipf(400, 0.9 + random.nextDouble() * 0.4, random);
    List<Event> counted = new ArrayList<>();
    List<Event> allowed = new ArrayList<>();
    List<Event> denied = new ArrayList<>();
    List<Event> recorded = new ArrayList<>();
    long maxN = 0;
    for (int i = 1; i <= events; i++) {
      clock.advance(random.nextInt(25));
      long now = clock.millis();
      String key = zipf.next();
      long n = 1 + random.nextInt(3);
      counter.add(key, n);
      counted.add(new Event(now, key, n));
      Decision d = limiter.tryAcquire(key, n);
      (d.allowed() ? allowed : denied).add(new Event(now, key, d.allowed() ? n : 1));
      if (random.nextInt(4) == 0) {
        stats.record(key, 1.5);
        recorded.add(new Event(now, key, 1));
      }
      if (i % (events / 12) == 0) {
        maxN = Math.max(maxN, checkRanking(counter.top(k).orElseThrow(), counted, counterSpec,
            k, now));
        checkRanking(limiter.top(k).orElseThrow(), allowed, limitSpec, k, now);
        checkRanking(limiter.topDenied(k).orElseThrow(), denied, limitSpec, k, now);
        checkRanking(stats.top(k).orElseThrow(), recorded, statsSpec.window(), k, now);
        assertThat(counter.top(3).orElseThrow()).hasSizeLessThanOrEqualTo(3);
      }
    }
    assertThat(maxN).as("enough traffic that the sketches overflow").isGreaterThan(20L * k);
    assertThat(denied).as("the limiter denied some").isNotEmpty();
  }

  @Test
  void topKeys_onZipfTraffic_withinTheStatedBound() {
    ManualClock clock = ManualClock.at(T + 17);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS)) {
      zipfWithinTheBound(wp, clock, "zipf", 1_800, 6_000);
    }
  }

  @Test
  void topKeys_evalsha_withinTheStatedBound() {
    ManualClock clock = ManualClock.at(T + 4_321);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.EVALSHA)) {
      zipfWithinTheBound(wp, clock, "zipfe", 1_801, 2_400);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void topKeys_expireWithTheWindow_andAreFedOnlyWhenOn() {
    ManualClock clock = ManualClock.at(T);
    try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri()).clock(clock)
        .expiryGrace(Duration.ZERO).build()); RespClient c = redis.client()) {
      WindowCounter off = wp.counter("plain", WindowSpec.panes(Duration.ofSeconds(10), 10));
      off.add("a", 2);
      assertThat(off.top(1)).isEmpty();
      assertThat((List<?>) c.command("KEYS", "wp1:t:{c:plain}*")).as("off: no sketch").isEmpty();

      WindowCounter on = wp.counter("expiring", WindowSpec.panes(Duration.ofSeconds(10), 10)
          .withTopKeys(5));
      on.add("a", 2);
      clock.advance(4_000);
      on.add("b", 1);
      assertThat(on.top(5)).contains(List.of(new TopKey("a", 2, 0), new TopKey("b", 1, 0)));
      List<String> keys = List.of("wp1:t:{c:expiring}:p10000/10/k5",
          "wp1:t:{c:expiring}:p10000/10/k5:h");
      long ttl = maxTtl(c, keys);
      // the last write's pane (T + 4 s) leaves at T + 14 s; expiry set to T + 15 s
      assertThat(ttl).isPositive().isLessThanOrEqualTo(11_000);
      clock.set(T + 10_000);
      assertThat(on.top(5)).as("a's pane has left").contains(List.of(new TopKey("b", 1, 0)));
      clock.set(T + 14_000);
      assertThat(on.top(5)).contains(List.of());
      // a new pane in a slot that held a pane that left: cleared by its first write
      on.add("c", 3);
      assertThat(on.top(5)).contains(List.of(new TopKey("c", 3, 0)));
      assertThat((List<Object>) c.command("ZRANGE", keys.get(0), "0", "-1")).as("slot 4 cleared; "
          + "slot 0 (a's pane, left) stays until its slot's next pane or the key's expiry")
          .containsExactly("0:a", "4:c");
    }
  }
}
