package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.KeyCreationRefusedException;
import io.windowpane.Limit;
import io.windowpane.MemoryStatus;
import io.windowpane.MemoryStatus.Level;
import io.windowpane.OnFailure;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The memory guard on a real redis-server with a small {@code maxmemory}: filled with windows
 * until each level trips, it refuses new keys in the function while existing keys keep deciding
 * exactly, reports Redis's own OOM answers and evictions, returns with hysteresis as keys expire,
 * and a chain with a local fallback answers new keys with no caller error. The guard reads
 * memory when the test asks ({@link RedisEngine#checkMemory()}), not on its 1 min schedule.
 */
@Tag("wall-clock") // waits (bounded) for filler keys to expire on the server's clock
class MemoryGuardIT {

  /**
   * Fillers that expire: a 4-pane counter of 4 s, each key gone 4 to 5 s after it was written
   * (W + r at most; a 1-pane counter of 5 s lived 5 to 10 s, which the test waited for twice).
   * Filling and the checks under pressure take well under the 4 s they live.
   */
  private static final WindowSpec FILLER = WindowSpec.panes(Duration.ofSeconds(4), 4);
  static final Limit LONG = Limit.of(5, WindowSpec.panes(Duration.ofMinutes(1), 6));
  private static final StatsSpec STATS = StatsSpec.histogram(Duration.ofMinutes(1), 6);
  private static final int BATCH = 250;

  private static RedisEngine engine(RedisServer redis) {
    return RedisEngine.builder().uri(redis.uri()).memoryCheckInterval(Duration.ofMinutes(1))
        .timeout(Duration.ofSeconds(5)).build(); // a loaded machine: connect patiently
  }

  static MemoryStatus check(RedisEngine engine) {
    return engine.checkMemory().orElseThrow().toCompletableFuture().join();
  }

  private static long info(RespClient c, String field) {
    String text = (String) c.command("INFO", "memory");
    for (String line : text.split("\r?\n")) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.substring(field.length() + 1).trim());
      }
    }
    throw new AssertionError(field + " missing from INFO memory");
  }

  /** Sets {@code maxmemory} so that the memory used now is {@code fraction} of it. */
  static long maxmemoryAt(RespClient c, double fraction, String policy) {
    long max = (long) (info(c, "used_memory") / fraction);
    c.command("CONFIG", "SET", "maxmemory-policy", policy);
    c.command("CONFIG", "SET", "maxmemory", Long.toString(max));
    return max;
  }

  /** Adds to fresh filler keys, a batch at a time, until the guard reads {@code level}. */
  private static MemoryStatus fillUntil(RedisEngine engine, WindowCounter filler, Level level,
      int[] next) {
    for (int round = 0; round < 400; round++) {
      List<String> keys = new ArrayList<>(BATCH);
      for (int i = 0; i < BATCH; i++) {
        keys.add("f" + next[0]++);
      }
      filler.addAll(keys, 1);
      MemoryStatus s = check(engine);
      if (s.level() == level) {
        return s;
      }
    }
    return fail("the guard never read " + level + ": " + check(engine));
  }

  @ParameterizedTest
  @ValueSource(strings = {"noeviction", "allkeys-lru"})
  void fillingRedis_tripsWarnThenPressure_refusesOnlyNewKeys_andRecoversWithHysteresis(
      String policy) {
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client()) {
      RedisEngine engine = engine(redis);
      try (Windowpane wp = Windowpane.using(engine)) {
        RateLimiter limiter = wp.limiter("l", LONG);
        WindowCounter counter = wp.counter("c", LONG.window());
        WindowStats stats = wp.stats("s", STATS);
        WindowCounter filler = wp.counter("f", FILLER);
        assertThat(limiter.tryAcquire("old", 1).remaining()).isEqualTo(4);
        assertThat(counter.add("old", 1)).isEqualTo(1);
        stats.record("old", 1.0);
        // at 50 %: once the fillers expire, memory settles well below WARN's exit (65 %)
        long max = maxmemoryAt(admin, 0.50, policy);
        assertThat(check(engine)).satisfies(s -> {
          assertThat(s.level()).isEqualTo(Level.NORMAL);
          assertThat(s.limitBytes()).isEqualTo(max);
          assertThat(s.evictionPolicy()).isEqualTo(policy);
        });

        int[] next = {0};
        MemoryStatus warn = fillUntil(engine, filler, Level.WARN, next);
        assertThat(warn.usage()).isBetween(0.70, 0.85);
        assertThat(limiter.tryAcquire("new-at-warn", 1).allowed()).as("WARN refuses nothing")
            .isTrue();
        MemoryStatus pressure = fillUntil(engine, filler, Level.PRESSURE, next);
        assertThat(pressure.usage()).isGreaterThanOrEqualTo(0.85);
        assertThat(pressure.levelChanges()).isEqualTo(2);

        // existing keys keep deciding exactly
        for (long remaining = 3; remaining >= 0; remaining--) {
          assertThat(limiter.tryAcquire("old", 1).remaining()).isEqualTo(remaining);
        }
        assertThat(limiter.tryAcquire("old", 1).allowed()).isFalse();
        assertThat(counter.add("old", 2)).isEqualTo(3);
        stats.record("old", 2.0);
        assertThat(stats.summary("old").count()).isEqualTo(2);

        // new keys are refused by the function, which creates and records nothing
        long keys = (Long) admin.command("DBSIZE");
        assertThatThrownBy(() -> limiter.tryAcquire("new", 1))
            .isInstanceOf(KeyCreationRefusedException.class).hasMessageContaining("new");
        assertThatThrownBy(() -> counter.add("new", 1))
            .isInstanceOf(KeyCreationRefusedException.class);
        assertThatThrownBy(() -> stats.record("new", 1.0))
            .isInstanceOf(KeyCreationRefusedException.class);
        assertThat(limiter.tryAcquireAsync("new", 1).toCompletableFuture())
            .failsWithin(Duration.ofSeconds(5)).withThrowableOfType(Exception.class)
            .withCauseInstanceOf(KeyCreationRefusedException.class);
        List<java.util.concurrent.CompletionStage<Void>> items =
            stats.recordAllAsync(List.of("old", "new"), List.of(new double[] {3.0},
                new double[] {3.0}));
        assertThat(items.get(0).toCompletableFuture()).succeedsWithin(Duration.ofSeconds(5));
        assertThat(items.get(1).toCompletableFuture()).failsWithin(Duration.ofSeconds(5))
            .withThrowableOfType(Exception.class)
            .withCauseInstanceOf(KeyCreationRefusedException.class);
        assertThatThrownBy(() -> counter.addAll(List.of("old", "new"), 1))
            .as("a batch: the existing item is applied, the new one refused")
            .isInstanceOf(KeyCreationRefusedException.class);
        assertThat(counter.count("old")).isEqualTo(4);
        assertThat(counter.count("new")).isZero();
        assertThat((Long) admin.command("DBSIZE")).as("no key created (fillers may expire)")
            .isLessThanOrEqualTo(keys);
        assertThat(check(engine).refusedCreations()).isEqualTo(6);

        // the fillers expire: the level comes down, each step only past its hysteresis
        List<MemoryStatus> readings = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        MemoryStatus s = check(engine);
        while (s.level() != Level.NORMAL && System.nanoTime() < deadline) {
          readings.add(s);
          java.util.concurrent.locks.LockSupport.parkNanos(50_000_000); // paces the readings
          s = check(engine);
        }
        readings.add(s);
        assertThat(s.level()).as("last readings %s",
            readings.subList(Math.max(0, readings.size() - 3), readings.size()))
            .isEqualTo(Level.NORMAL);
        for (MemoryStatus r : readings) {
          if (r.usage() >= 0.80) {
            assertThat(r.level()).as("at %s: pressure is left below 80 %%", r.usage())
                .isEqualTo(Level.PRESSURE);
          }
        }
        assertThat(limiter.tryAcquire("new", 1).remaining()).as("new keys accepted again")
            .isEqualTo(4);
        assertThat(check(engine).evictedKeys()).as("the guard kept Redis from evicting")
            .isZero();
      }
    }
  }

  @Test
  void crossingPressure_shedsTheFirstNewKeyWithinOneCheckInterval() {
    long intervalMillis = 200;
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client();
        Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri())
            .memoryCheckInterval(Duration.ofMillis(intervalMillis)).build())) {
      long max = maxmemoryAt(admin, 0.60, "noeviction");
      WindowCounter counter = wp.counter("c", LONG.window());
      int i = 0;
      while (info(admin, "used_memory") < 0.85 * max) {
        counter.add("k" + i++, 1);
      }
      long crossed = System.nanoTime();
      try {
        while (true) { // about one new key a millisecond: pacing, not synchronization
          counter.add("k" + i++, 1);
          java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
      } catch (KeyCreationRefusedException e) {
        long millis = (System.nanoTime() - crossed) / 1_000_000;
        System.out.printf("memory guard: first creation shed %d ms after crossing 85 %%"
            + " (check interval %d ms)%n", millis, intervalMillis);
        assertThat(millis).as("one interval and a reading").isLessThan(intervalMillis + 1_500);
      }
    }
  }

  @Test
  void redisOwnOom_putsThePrimaryUnderPressureAtOnce() {
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client()) {
      RedisEngine guarded = engine(redis);
      try (Windowpane wp = Windowpane.using(guarded);
          Windowpane unguarded = Windowpane.using(RedisEngine.builder().uri(redis.uri())
              .memoryGuard(false).build())) {
        assertThat(unguarded.memoryStatus()).isEmpty();
        maxmemoryAt(admin, 0.90, "noeviction"); // not read by the guard: its reading is older
        assertThat(wp.memoryStatus().orElseThrow().level()).isEqualTo(Level.NORMAL);
        WindowCounter filler = unguarded.counter("f", LONG.window());
        int i = 0;
        try {
          while (i < 1_000_000) {
            filler.add("f" + i++, 1);
          }
          fail("Redis never refused a write");
        } catch (WindowpaneException e) {
          assertThat(e).isNotInstanceOf(KeyCreationRefusedException.class)
              .hasMessageContaining("OOM");
        }
        WindowCounter counter = wp.counter("c", LONG.window());
        WindowpaneException oom = null;
        for (int j = 0; j < 10_000 && oom == null; j++) { // Redis hovers at its limit
          try {
            counter.add("a" + j, 1);
          } catch (WindowpaneException e) {
            oom = e;
          }
        }
        assertThat(oom).isNotNull().isNotInstanceOf(KeyCreationRefusedException.class)
            .hasMessageContaining("OOM");
        MemoryStatus s = wp.memoryStatus().orElseThrow();
        assertThat(s.level()).as("at once, before the next reading").isEqualTo(Level.PRESSURE);
        assertThat(s.outOfMemoryErrors()).isEqualTo(1);
        // room again for Redis (86 %), still pressure for the guard: the function refuses
        maxmemoryAt(admin, 0.86, "noeviction");
        assertThat(check(guarded).level()).isEqualTo(Level.PRESSURE);
        assertThatThrownBy(() -> counter.add("b", 1))
            .isInstanceOf(KeyCreationRefusedException.class);
        assertThat(filler.add("f0", 1)).as("an existing key, unguarded engine").isEqualTo(2);
      }
    }
  }

  @Test
  void evictions_areCounted() {
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client()) {
      RedisEngine guarded = engine(redis);
      try (Windowpane wp = Windowpane.using(guarded);
          Windowpane unguarded = Windowpane.using(RedisEngine.builder().uri(redis.uri())
              .memoryGuard(false).build())) {
        maxmemoryAt(admin, 0.90, "allkeys-lru");
        WindowCounter filler = unguarded.counter("f", LONG.window());
        for (int round = 0; round < 100 && check(guarded).evictedKeys() == 0; round++) {
          List<String> keys = new ArrayList<>(BATCH);
          for (int i = 0; i < BATCH; i++) {
            keys.add("f" + round + ":" + i);
          }
          filler.addAll(keys, 1);
        }
        assertThat(wp.memoryStatus().orElseThrow().evictedKeys()).isPositive();
      }
    }
  }

  @Test
  void chainWithLocalFallback_answersNewKeysUnderPressure_withNoCallerError() {
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client()) {
      RedisEngine engine = engine(redis);
      RedisEngine alone = engine(redis);
      RedisEngine alsoAlone = engine(redis);
      // no latency signal, a long call timeout: a loaded machine's slow calls are not a fault
      Failover chain = Failover.chain(engine, Windowpane.localBuilder().buildEngine())
          .slowWindowsToTrip(0).callTimeout(Duration.ofSeconds(2)).build();
      RedisEngine fillerEngine = engine(redis);
      try (Windowpane wp = Windowpane.using(chain);
          Windowpane fill = Windowpane.using(fillerEngine);
          Windowpane deny = Windowpane.using(Failover.chain(alone).onFailure(OnFailure.DENY)
              .build());
          Windowpane allow = Windowpane.using(Failover.chain(alsoAlone)
              .onFailure(OnFailure.ALLOW).build())) {
        RateLimiter limiter = wp.limiter("l", LONG);
        WindowCounter counter = wp.counter("c", LONG.window());
        assertThat(limiter.tryAcquire("old", 1).engine()).contains("redis");
        maxmemoryAt(admin, 0.60, "noeviction");
        fillUntil(fillerEngine, fill.counter("f", LONG.window()), Level.PRESSURE,
            new int[] {0});
        assertThat(check(engine).level()).isEqualTo(Level.PRESSURE);
        assertThat(wp.memoryStatus().orElseThrow().level()).isEqualTo(Level.PRESSURE);

        Decision fresh = limiter.tryAcquire("new", 1);
        assertThat(fresh.allowed()).isTrue();
        assertThat(fresh.engine()).contains("local");
        assertThat(fresh.degraded()).isTrue();
        assertThat(limiter.tryAcquire("new", 1).remaining()).as("local keeps counting it")
            .isEqualTo(3);
        assertThat(limiter.tryAcquire("old", 1)).satisfies(d -> {
          assertThat(d.engine()).contains("redis");
          assertThat(d.remaining()).isEqualTo(3);
        });
        assertThat(counter.add("new", 2)).isEqualTo(2);
        assertThat(chain.status().get(0).health()).as("the member stays up")
            .isEqualTo(Failover.Health.UP);
        assertThat(chain.stats().journaledBatches()).as("nothing to replay into redis")
            .isZero();
        assertThat(chain.status().get(0).pendingReplay()).isZero();

        assertThat(check(alone).level()).isEqualTo(Level.PRESSURE);
        assertThat(check(alsoAlone).level()).isEqualTo(Level.PRESSURE);
        Decision denied = deny.limiter("l", LONG).tryAcquire("new2", 1);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.engine()).contains("none");
        Decision allowed = allow.limiter("l", LONG).tryAcquire("new3", 1);
        assertThat(allowed.allowed()).isTrue();
        assertThat(allowed.engine()).contains("none");
      }
    }
  }
}
