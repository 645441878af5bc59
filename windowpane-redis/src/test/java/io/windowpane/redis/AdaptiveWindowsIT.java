package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Failover;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.MemoryStatus.Level;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import io.windowpane.testkit.redis.RespErrorException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Adaptive windows on a real redis-server: memory pressure is made by lowering the server's
 * {@code maxmemory} until the guard reads WARN (the real path: INFO, the guard's level, the
 * calls' '~' flag), and lifted by setting it back to 0. Time is a manual clock's.
 */
@ExtendWith(RedisServerExtension.class)
class AdaptiveWindowsIT {

  private static final long W = 64_000;
  private static final int P = 64; // r = 1 s; levels 64, 32, 16, 8
  private static final WindowSpec ADAPTIVE = WindowSpec.panes(Duration.ofMillis(W), P)
      .withAdaptive(8);
  private static final WindowSpec PLAIN = ADAPTIVE.withoutAdaptive();
  private static final long T0 = ConformanceBase.REALISTIC + 123;

  private final RedisServer redis;
  private final RespClient admin;
  private final ManualClock clock = ManualClock.at(T0);
  private final List<RedisEngine> engines = new ArrayList<>();

  AdaptiveWindowsIT(RedisServer redis) {
    this.redis = redis;
    this.admin = redis.client();
  }

  @AfterEach
  void lift() {
    admin.command("CONFIG", "SET", "maxmemory", "0");
    admin.command("FLUSHALL");
    admin.close();
  }

  private Windowpane windowpane() {
    RedisEngine engine = TestEngines.builder(redis).clock(clock)
        .expiryGrace(TestEngines.TEST_GRACE).memoryCheckInterval(Duration.ofMinutes(1)).build();
    engines.add(engine);
    return Windowpane.using(engine);
  }

  /** Memory pressure on (WARN: used memory at 78% of maxmemory) or off, read by every engine. */
  private void pressure(boolean on) {
    long max = on ? (long) (usedMemory() / 0.78) : 0;
    admin.command("CONFIG", "SET", "maxmemory", Long.toString(max));
    for (RedisEngine engine : engines) {
      assertThat(engine.checkMemory().orElseThrow().toCompletableFuture().join().level())
          .isEqualTo(on ? Level.WARN : Level.NORMAL);
    }
  }

  private long usedMemory() {
    for (String line : ((String) admin.command("INFO", "memory")).split("\r?\n")) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    throw new AssertionError("used_memory missing from INFO memory");
  }

  /** The key's coarsening factor: 1, or k from its format field '1x<k>'. */
  private int factor(String key) {
    Object v = admin.command("HGET", key, "v");
    return v == null || "1".equals(v) ? 1 : Integer.parseInt(((String) v).substring(2));
  }

  private long memory(String key) {
    return (Long) admin.command("MEMORY", "USAGE", key, "SAMPLES", "0");
  }

  private static String counterKey(String name, String key) {
    return "wp1:c:{" + name + ":" + key + ":" + name.length() + "}:p" + W + "/" + P;
  }

  @Test
  void counterUnderPressure_coarsensOneLevelPerWindow_shrinks_andRefinesOneLevelPerWindow() {
    try (Windowpane wp = windowpane()) {
      WindowCounter counter = wp.counter("c", ADAPTIVE);
      String key = counterKey("c", "k");
      for (int i = 0; i < P; i++) { // one event in each of the 64 panes
        counter.add("k", 1);
        clock.advance(W / P);
      }
      long fine = memory(key);
      assertThat(factor(key)).isEqualTo(1);

      pressure(true);
      long[] expected = {2, 4, 8, 8};
      for (long k : expected) {
        long count = counter.add("k", 1);
        assertThat(factor(key)).isEqualTo(k);
        assertThat(count).as("never more than the events of the window").isLessThanOrEqualTo(P);
        assertThat(memory(key)).as("coarsening frees memory at once").isLessThan(fine);
        clock.advance(W / 2);
        counter.add("k", 1);
        assertThat(factor(key)).as("damped: one step per window length").isEqualTo(k);
        clock.advance(W / 2);
      }

      pressure(false);
      for (long k : new long[] {4, 2, 1, 1}) {
        counter.add("k", 1);
        assertThat(factor(key)).isEqualTo(k);
        clock.advance(W / 2);
        counter.add("k", 1);
        assertThat(factor(key)).as("damped: one step per window length").isEqualTo(k);
        clock.advance(W / 2);
      }
    }
  }

  /**
   * A seeded random walk of adds under pressure switched on and off, checked after every call
   * against an exact model: the count lies between the events of (t - W + K r, t] and those of
   * (t - W, t], K the largest factor the key had since t - W. The same run, checked against half
   * that error, must fail somewhere: the bound is needed, and the check can fail.
   */
  @Test
  void randomAdds_stayWithinTheStatedErrorAtEveryLevel() {
    Random random = new Random(20261127);
    try (Windowpane wp = windowpane()) {
      WindowCounter counter = wp.counter("m", ADAPTIVE);
      String key = counterKey("m", "k");
      List<long[]> events = new ArrayList<>(); // {time, n}
      List<long[]> factors = new ArrayList<>(); // {time, factor from then on}
      factors.add(new long[] {Long.MIN_VALUE, 1});
      boolean on = false;
      int checked = 0;
      int tighterFails = 0;
      int[] seen = new int[9];
      for (int step = 0; step < 1_200; step++) {
        if (step % 300 == 150) {
          on = !on;
          pressure(on);
        }
        clock.advance(random.nextInt(1_400));
        long t = clock.millis();
        long n = 1 + random.nextInt(3);
        long count = counter.add("k", n);
        events.add(new long[] {t, n});
        int k = factor(key);
        factors.add(new long[] {t, k});
        seen[k]++;
        long most = 1;
        for (int i = factors.size() - 1; i >= 0; i--) {
          most = Math.max(most, factors.get(i)[1]);
          if (factors.get(i)[0] <= t - W) {
            break;
          }
        }
        long r = W / P;
        assertThat(count).as("step %d at factor %d", step, k)
            .isBetween(exact(events, t - W + most * r, t), exact(events, t - W, t));
        if (count < exact(events, t - W + most * r / 2, t)) {
          tighterFails++;
        }
        checked++;
      }
      assertThat(checked).isEqualTo(1_200);
      assertThat(seen[1]).isPositive();
      assertThat(seen[2]).isPositive();
      assertThat(seen[4]).isPositive();
      assertThat(seen[8]).as("every level visited: %s", java.util.Arrays.toString(seen))
          .isPositive();
      assertThat(tighterFails).as("half the stated error is broken somewhere").isPositive();
    }
  }

  private static long exact(List<long[]> events, long after, long upTo) {
    long sum = 0;
    for (long[] e : events) {
      if (e[0] > after && e[0] <= upTo) {
        sum += e[1];
      }
    }
    return sum;
  }

  @Test
  void clientsDeclaringTheWindowDifferently_readTheResolutionFromTheKey() {
    try (Windowpane a = windowpane(); Windowpane b = windowpane(); Windowpane c = windowpane()) {
      WindowCounter adaptive = a.counter("two", ADAPTIVE);
      WindowCounter plain = b.counter("two", PLAIN);
      WindowCounter other = c.counter("two", PLAIN.withAdaptive(32));
      String key = counterKey("two", "k");
      for (int i = 0; i < 10; i++) {
        plain.add("k", 1);
        clock.advance(W / P);
      }
      pressure(true);
      assertThat(adaptive.add("k", 1)).isEqualTo(11);
      assertThat(factor(key)).isEqualTo(2);
      clock.advance(W / 2);
      assertThat(plain.add("k", 2)).as("a plain client writes at the key's resolution")
          .isEqualTo(13).isEqualTo(adaptive.count("k")).isEqualTo(other.count("k"));
      clock.advance(W / 2); // one window length after the step: every event before it has left
      assertThat(plain.add("k", 1)).isEqualTo(3);
      assertThat(factor(key)).as("a plain client never steps the key").isEqualTo(2);
      assertThat(other.add("k", 1)).isEqualTo(4).isEqualTo(plain.count("k"));
      assertThat(factor(key)).as("32 panes is that client's minimum: it does not go to 16")
          .isEqualTo(2);
      assertThat(adaptive.add("k", 1)).isEqualTo(5);
      assertThat(factor(key)).isEqualTo(4);
      assertThat(plain.count("k")).isEqualTo(adaptive.count("k")).isEqualTo(other.count("k"))
          .isEqualTo(5);
    }
  }

  @Test
  void limits_keepTheirPanesUnlessTheyOptIn_andDecideAtTheKeysResolution() {
    try (Windowpane wp = windowpane()) {
      RateLimiter limiter = wp.limiter("l", Limit.of(100, ADAPTIVE), Limit.of(1_000, PLAIN));
      String adaptiveKey = "wp1:r:{l:k:1}:0:p" + W + "/" + P;
      String plainKey = "wp1:r:{l:k:1}:1:p" + W + "/" + P;
      for (int i = 0; i < P; i++) {
        assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
        clock.advance(W / P);
      }
      long fine = memory(adaptiveKey);
      pressure(true);
      // at T0 + W the fine window holds the events 1..63; the coarse one drops event 1, whose
      // pane shares a coarse pane with event 0's, which has left: 62 + 1
      assertThat(limiter.tryAcquire("k", 1).remaining()).isEqualTo(100 - 63);
      assertThat(factor(adaptiveKey)).isEqualTo(2);
      assertThat(factor(plainKey)).as("a limit over a plain window keeps its panes").isEqualTo(1);
      assertThat(memory(adaptiveKey)).isLessThan(fine);
      assertThat(limiter.tryAcquire("k", 100 - 63).allowed()).isTrue();
      assertThat(limiter.tryAcquire("k", 1).allowed()).as("the limit holds at k = 2").isFalse();
      assertThat(limiter.tryAcquire("k", 1).retryAfter().toMillis())
          .as("the oldest coarse pane leaves first: within one coarse pane")
          .isBetween(1L, 2 * W / P);
    }
  }

  @Test
  void statisticsUnderPressure_shrink_andKeepCountsAndQuantiles() {
    StatsSpec spec = StatsSpec.histogram(Duration.ofMillis(W), P).withAdaptive(8);
    try (Windowpane wp = windowpane(); Windowpane plainClient = windowpane()) {
      WindowStats stats = wp.stats("s", spec);
      WindowStats plain = plainClient.stats("s", spec.withoutAdaptive());
      for (int i = 0; i < P; i++) {
        for (int v = 1; v <= 20; v++) {
          stats.record("k", v * 10.0 + i);
        }
        clock.advance(W / P);
      }
      String key = ((List<?>) admin.command("KEYS", "wp1:s:{s:k:1}:h*")).stream()
          .map(String.class::cast).filter(name -> !name.endsWith(":a")).findFirst().orElseThrow();
      Summary before = stats.summary("k");
      long fine = memory(key) + memory(key + ":a");
      pressure(true);
      stats.record("k", 500.0);
      assertThat(factor(key)).isEqualTo(2);
      Summary after = stats.summary("k");
      assertThat(memory(key) + memory(key + ":a")).isLessThan(fine);
      // at t = T0 + W the fine window held panes 1..63; the coarse one holds 2..63 (pane 1
      // shared a coarse pane with pane 0, which left): one fine pane, 20 values, fewer
      assertThat(before.count()).isEqualTo(63 * 20);
      assertThat(after.count()).isEqualTo(62 * 20 + 1);
      assertThat(plain.summary("k").count()).isEqualTo(after.count());
      assertThat(after.max()).isEqualTo(500.0);
      assertThat(after.min()).isEqualTo(12.0);
      double median = after.quantile(0.5);
      assertThat(median).isCloseTo(before.quantile(0.5), org.assertj.core.data.Percentage
          .withPercentage(3));
      clock.advance(W / 2);
      stats.record("k", 1.0);
      assertThat(factor(key)).as("damped").isEqualTo(2);
      clock.advance(W / 2);
      stats.record("k", 3.0);
      assertThat(factor(key)).isEqualTo(4);
      pressure(false);
      clock.advance(W / 2);
      stats.record("k", 2.0);
      assertThat(factor(key)).as("damped").isEqualTo(4);
      clock.advance(W / 2);
      stats.record("k", 5.0);
      assertThat(factor(key)).isEqualTo(2);
      assertThat(stats.summary("k").count()).as("2.0 and 5.0, and 3.0 unless its pane left")
          .isBetween(2L, 3L).isEqualTo(plain.summary("k").count());
      clock.advance(2 * W);
      stats.record("k", 4.0);
      assertThat(factor(key)).as("an idle key reads as absent: it starts again at 1")
          .isEqualTo(1);
      assertThat(stats.summary("k").count()).isEqualTo(1);
    }
  }

  @Test
  void aChainWithALocalFallback_acceptsAdaptiveWindows() {
    RedisEngine redisEngine = TestEngines.builder(redis).clock(clock)
        .expiryGrace(TestEngines.TEST_GRACE).memoryCheckInterval(Duration.ofMinutes(1)).build();
    engines.add(redisEngine);
    Failover chain = Failover.chain(redisEngine,
        Windowpane.localBuilder().clock(clock).buildEngine()).build();
    try (Windowpane wp = Windowpane.using(chain)) {
      WindowCounter counter = wp.counter("chain", ADAPTIVE);
      RateLimiter limiter = wp.limiter("chainl", Limit.of(3, ADAPTIVE));
      pressure(true);
      assertThat(counter.add("k", 2)).isEqualTo(2);
      assertThat(factor(counterKey("chain", "k"))).isEqualTo(2);
      assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
      assertThat(limiter.tryAcquire("k", 1).allowed()).isFalse();
    }
  }

  @Test
  void eventTimeReplaysAndHolds_onACoarsenedKey_useItsResolution() {
    try (Windowpane wp = windowpane()) {
      WindowCounter counter = wp.counter("ev", ADAPTIVE);
      WindowStats stats = wp.stats("evs", StatsSpec.histogram(Duration.ofMillis(W), P)
          .withAdaptive(8));
      String key = counterKey("ev", "k");
      pressure(true);
      long t = clock.millis();
      assertThat(counter.add("k", 1)).isEqualTo(1);
      stats.record("k", 5.0);
      assertThat(factor(key)).isEqualTo(2);
      clock.advance(10_000);
      // an event 10 s back goes to its own coarse pane; one more than W back is late
      assertThat(counter.add("k", 2, t + 1)).isEqualTo(3);
      assertThatThrownBy(() -> counter.add("k", 1, clock.millis() - W - 1))
          .isInstanceOf(io.windowpane.EventTimeException.class);
      stats.record("k", 7.0, t + 1);
      assertThat(stats.summary("k").count()).isEqualTo(2);
      assertThat(admin.command("FCALL", "wp_replay", "2", key + ":y:r1", key,
          Long.toString(clock.millis()), Long.toString(t + 2), "r1", "4", "1", "p",
          Long.toString(W), P + ":8")).isEqualTo(4L);
      assertThat(counter.count("k")).isEqualTo(7);
      assertThat(admin.command("FCALL", "wp_holds", "1", key, Long.toString(clock.millis()),
          "1", "p", Long.toString(W), Integer.toString(P))).isEqualTo(1L);
      // the coarse pane of t leaves at the start of its pane + W: up to one coarse pane early
      long coarse = 2 * W / P;
      clock.set(Math.floorDiv(t, coarse) * coarse + W);
      assertThat(counter.count("k")).isZero();
      assertThat(stats.summary("k").count()).isZero();
      clock.advance(coarse); // the key's expiry: (head + P/k + 1) coarse panes
      assertThat(admin.command("FCALL", "wp_holds", "1", key, Long.toString(clock.millis()),
          "1", "p", Long.toString(W), Integer.toString(P))).isEqualTo(0L);
    }
  }

  @Test
  void onRedis6ThroughEvalsha_theSameSteps() {
    try (RedisServer redis6 = RedisServer.startRedis6(); RespClient admin6 = redis6.client()) {
      RedisEngine engine = TestEngines.builder(redis6).clock(clock).scripts(ScriptMode.EVALSHA)
          .expiryGrace(TestEngines.TEST_GRACE).memoryCheckInterval(Duration.ofMinutes(1)).build();
      try (Windowpane wp = Windowpane.using(engine)) {
        WindowCounter counter = wp.counter("six", ADAPTIVE);
        for (int i = 0; i < P; i++) {
          counter.add("k", 1);
          clock.advance(W / P);
        }
        admin6.command("CONFIG", "SET", "maxmemory", Long.toString((long) (Long.parseLong(
            ((String) admin6.command("INFO", "memory")).lines()
                .filter(line -> line.startsWith("used_memory:")).findFirst().orElseThrow()
                .substring("used_memory:".length()).trim()) / 0.78)));
        assertThat(engine.checkMemory().orElseThrow().toCompletableFuture().join().level())
            .isEqualTo(Level.WARN);
        assertThat(counter.add("k", 1)).isEqualTo(63);
        assertThat(admin6.command("HGET", counterKey("six", "k"), "v")).isEqualTo("1x2");
        assertThat(counter.count("k")).isEqualTo(63);
      }
    }
  }

  @Test
  void badAdaptiveArguments_areRefusedByTheFunctions_changingNothing() {
    String key = counterKey("bad", "k");
    for (String panes : new String[] {"64:3", "64:0", "64:65", "64:x"}) {
      assertThatThrownBy(() -> admin.command("FCALL", "wp_add", "1", key, "1000~", "1", "p",
          Long.toString(W), panes)).isInstanceOf(RespErrorException.class)
          .hasMessageContaining("WPARGS");
    }
    assertThat(admin.command("EXISTS", key)).isEqualTo(0L);
    admin.command("FCALL", "wp_add", "1", key, "1000~", "1", "p", Long.toString(W), "64:8");
    assertThat(factor(key)).isEqualTo(2);
    assertThatThrownBy(() -> admin.command("FCALL", "wp_count", "1", key, "1000", "p",
        Long.toString(W), "1")).isInstanceOf(RespErrorException.class)
        .hasMessageContaining("WPFORMAT");
  }
}
