package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowSpec;
import io.windowpane.WindowpaneException;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replay ({@code RedisEngine.replays()}): what a failover chain sends back into Redis for the
 * events its fallback took. Replayed events land where their own time puts them (pane, fixed
 * window, log position), leave the window with it, are dropped when no window holds their time
 * any more, count once per replay id, and go into every limit of a quota past the limit. Run in
 * each mode: FCALL and EVALSHA, on Redis 6 and on a cluster.
 */
@ExtendWith(RedisServerExtension.class)
class RedisReplayIT {

  private static final Duration TEN_SECONDS = Duration.ofSeconds(10);
  private static final AtomicInteger NAMES = new AtomicInteger();

  /** How an engine runs counters and limiters. */
  enum Mode { FUNCTIONS, EVALSHA }

  private final RedisServer redis;

  RedisReplayIT(RedisServer redis) {
    this.redis = redis;
  }

  private RedisEngine engine(Mode mode, ManualClock clock) {
    RedisEngine.Builder b = RedisEngine.builder().uri(redis.uri()).clock(clock)
        .expiryGrace(TestEngines.TEST_GRACE);
    b.scripts(mode == Mode.FUNCTIONS ? ScriptMode.FUNCTIONS : ScriptMode.EVALSHA);
    return b.build();
  }

  private static String name() {
    return "replay" + NAMES.incrementAndGet();
  }

  private static void await(CompletionStage<Void> replay) {
    replay.toCompletableFuture().join();
  }

  /** A 10 s window boundary at or before {@code start}: the tests place times relative to it. */
  private static long base(long start) {
    return Math.floorDiv(start, 10_000) * 10_000;
  }

  static Stream<Arguments> modesAndInstants() {
    List<Arguments> out = new ArrayList<>();
    for (Mode mode : Mode.values()) {
      for (long start : new long[] {TestEngines.startInstants()[0], -5_017, (1L << 51) + 7}) {
        out.add(Arguments.of(mode, start));
      }
    }
    return out.stream();
  }

  @ParameterizedTest
  @MethodSource("modesAndInstants")
  void replayedAdd_landsInThePaneOfItsTime_andLeavesTheWindowWithIt(Mode mode, long start) {
    long base = base(start);
    ManualClock clock = ManualClock.at(base + 9_500);
    try (RedisEngine engine = engine(mode, clock)) {
      assertThat(engine.replays()).isTrue();
      CounterStore counter = engine.counterStore(name(), WindowSpec.panes(TEN_SECONDS, 10));
      assertThat(counter.add("k", 1)).isEqualTo(1);
      await(counter.replayAsync("k", 2, base + 500, "r1"));
      assertThat(counter.count("k")).isEqualTo(3);
      clock.set(base + 10_000); // the pane of base + 500 leaves; the add's (base + 9,000) stays
      assertThat(counter.count("k")).isEqualTo(1);
      clock.set(base + 18_999);
      assertThat(counter.count("k")).isEqualTo(1);
      clock.set(base + 19_000);
      assertThat(counter.count("k")).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void replay_olderThanTheWindow_isDropped_laterThanNow_isTakenAsNow(Mode mode) {
    long base = base(TestEngines.startInstants()[0]);
    ManualClock clock = ManualClock.at(base + 20_000);
    try (RedisEngine engine = engine(mode, clock)) {
      CounterStore log = engine.counterStore(name(), WindowSpec.log(TEN_SECONDS));
      await(log.replayAsync("k", 5, base + 10_000, "at-the-edge")); // t <= now - W
      assertThat(log.count("k")).isZero();
      assertThat(log.holdsState("k")).as("nothing recorded").isFalse();
      await(log.replayAsync("k", 1, base + 10_001, "just-inside"));
      assertThat(log.count("k")).isEqualTo(1);
      await(log.replayAsync("k", 2, Long.MAX_VALUE, "future")); // taken as now
      assertThat(log.count("k")).isEqualTo(3);
      clock.set(base + 20_001);
      assertThat(log.count("k")).as("base + 10,001 has left").isEqualTo(2);
      clock.set(base + 30_000);
      assertThat(log.count("k")).as("the future replay was recorded at base + 20,000").isZero();
      await(log.replayAsync("k", 2, Long.MIN_VALUE, "far-past"));
      assertThat(log.count("k")).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void sameReplayIdTwice_countsOnce_evenConcurrently(Mode mode) {
    long base = base(TestEngines.startInstants()[0]);
    ManualClock clock = ManualClock.at(base + 5_000);
    try (RedisEngine engine = engine(mode, clock)) {
      CounterStore counter = engine.counterStore(name(), WindowSpec.panes(TEN_SECONDS, 10));
      await(counter.replayAsync("k", 4, base + 1_000, "batch-1"));
      await(counter.replayAsync("k", 4, base + 1_000, "batch-1"));
      List<CompletableFuture<Void>> again = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        again.add(counter.replayAsync("k", 7, base + 2_000, "batch-2").toCompletableFuture());
      }
      CompletableFuture.allOf(again.toArray(new CompletableFuture<?>[0])).join();
      assertThat(counter.count("k")).isEqualTo(11);
      await(counter.replayAsync("k", 1, base + 1_000, "batch-3"));
      assertThat(counter.count("k")).as("another id counts").isEqualTo(12);
      await(counter.replayAsync("other", 4, base + 1_000, "batch-1"));
      assertThat(counter.count("other")).as("the id is per key").isEqualTo(4);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void limiterReplay_recordsInEveryLimitPastItsLimit_thenTryAcquireWaitsForIt(Mode mode) {
    long base = base(TestEngines.startInstants()[0]);
    ManualClock clock = ManualClock.at(base + 550);
    Limit perSecond = Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10));
    Limit perMinute = Limit.of(15, WindowSpec.log(Duration.ofMinutes(1)));
    try (RedisEngine engine = engine(mode, clock)) {
      LimiterStore limiter = engine.limiterStore(name(), Quota.of(perSecond, perMinute));
      await(limiter.replayAsync("k", 12, base + 250, "fallback-1"));
      Decision d = limiter.tryAcquire("k", 1);
      // 12 of 10 in the pane of base + 250, which leaves at base + 1,200
      assertThat(d.allowed()).isFalse();
      assertThat(d.deniedBy()).contains(perSecond);
      assertThat(d.retryAfterMillis()).isEqualTo(650);
      assertThat(d.remaining()).isZero();

      clock.set(base + 1_200);
      d = limiter.tryAcquire("k", 1);
      assertThat(d.allowed()).isTrue();
      assertThat(d.remaining()).as("15 - 13 per minute").isEqualTo(2);

      await(limiter.replayAsync("k", 5, base + 300, "fallback-2"));
      d = limiter.tryAcquire("k", 1);
      // 18 of 15 per minute: the 12 at base + 250 must leave, at base + 60,250
      assertThat(d.allowed()).isFalse();
      assertThat(d.deniedBy()).contains(perMinute);
      assertThat(d.retryAfterMillis()).isEqualTo(59_050);
      assertThat(d.remaining()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void weightedReplay_goesToTheFixedWindowOfItsTime(Mode mode) {
    long base = base(TestEngines.startInstants()[0]);
    ManualClock clock = ManualClock.at(base + 15_000);
    try (RedisEngine engine = engine(mode, clock)) {
      CounterStore counter = engine.counterStore(name(), WindowSpec.weighted(TEN_SECONDS));
      assertThat(counter.add("k", 4)).isEqualTo(4);
      await(counter.replayAsync("k", 10, base + 5_000, "previous"));
      assertThat(counter.count("k")).as("4 + 10 x half the previous window").isEqualTo(9);
      await(counter.replayAsync("k", 3, base + 12_000, "current"));
      assertThat(counter.count("k")).isEqualTo(12);
      await(counter.replayAsync("k", 100, base - 1, "too-old"));
      assertThat(counter.count("k")).isEqualTo(12);
      clock.set(base + 20_000);
      assertThat(counter.count("k")).as("the current window's 7 are now the previous")
          .isEqualTo(7);
    }
  }

  @Test
  void logReplay_keepsTheMemberFormat_andTheExpiryFollowsTheNewestEvent() {
    long base = base(TestEngines.startInstants()[0]);
    ManualClock clock = ManualClock.at(base + 5_000);
    String name = name();
    try (RedisEngine engine = engine(Mode.FUNCTIONS, clock); RespClient c = redis.client()) {
      CounterStore log = engine.counterStore(name, WindowSpec.log(TEN_SECONDS));
      log.add("k", 1);
      String set = "wp1:c:{" + name + ":k:" + name.length() + "}:l10000";
      assertThat(c.command("HGET", set + ":m", "e")).isEqualTo(Long.toString(base + 15_001));
      await(log.replayAsync("k", 2, base + 1_000, "older"));
      assertThat(c.command("HGET", set + ":m", "e")).as("not shortened, not extended")
          .isEqualTo(Long.toString(base + 15_001));
      assertThat(c.command("ZRANGE", set, "0", "-1", "WITHSCORES")).isEqualTo(
          List.of("2:2", Long.toString(base + 1_000), "1:1", Long.toString(base + 5_000)));
      assertThat(c.command("HGET", set + ":m", "o")).isEqualTo(Long.toString(base + 1_000));
      assertThat(c.command("HGETALL", set + ":y:older")).isEqualTo(
          List.of("v", "1", "e", Long.toString(base + 5_000 + 10_001)));
      clock.set(base + 11_000);
      assertThat(log.count("k")).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @EnumSource(value = Mode.class, names = {"FUNCTIONS", "EVALSHA"})
  void histogramReplay_landsInThePaneOfItsTime(Mode mode) {
    long base = base(TestEngines.startInstants()[0]);
    ManualClock clock = ManualClock.at(base + 9_500);
    try (RedisEngine engine = engine(mode, clock)) {
      StatsStore stats = engine.statsStore(name(), StatsSpec.histogram(TEN_SECONDS, 10));
      stats.record("k", new double[] {5});
      await(stats.replayAsync("k", new double[] {100, 200, 300}, base + 500, "h1"));
      await(stats.replayAsync("k", new double[] {100, 200, 300}, base + 500, "h1"));
      Summary s = stats.summary("k");
      assertThat(s.count()).isEqualTo(4);
      assertThat(s.sum()).isEqualTo(605);
      assertThat(s.min()).isEqualTo(5);
      assertThat(s.max()).isEqualTo(300);
      await(stats.replayAsync("k", new double[] {7}, base - 500, "too-old"));
      assertThat(stats.summary("k").count()).isEqualTo(4);
      clock.set(base + 10_000);
      s = stats.summary("k");
      assertThat(s.count()).isEqualTo(1);
      assertThat(s.max()).isEqualTo(5);
      await(stats.replayAsync("k", new double[] {9}, base + 10_000, "newer")); // moves the head
      clock.set(base + 19_999);
      s = stats.summary("k");
      assertThat(s.count()).isEqualTo(1);
      assertThat(s.min()).isEqualTo(9);
    }
  }

  @ParameterizedTest
  @EnumSource(value = Mode.class, names = {"FUNCTIONS", "EVALSHA"})
  void exactReplay_recordsAtItsTime_andWhatFitsInAFullWindow(Mode mode) {
    long base = base(TestEngines.startInstants()[0]);
    ManualClock clock = ManualClock.at(base + 5_000);
    try (RedisEngine engine = engine(mode, clock)) {
      StatsStore stats = engine.statsStore(name(),
          StatsSpec.exact(TEN_SECONDS).withMaxValues(3));
      stats.record("k", new double[] {1.5});
      await(stats.replayAsync("k", new double[] {2.5, 3.5, 4.5}, base + 1_000, "x1"));
      Summary s = stats.summary("k");
      assertThat(s.count()).as("maxValues 3: two of three fit, no failure").isEqualTo(3);
      assertThat(s.sum()).isEqualTo(7.5);
      clock.set(base + 11_000);
      assertThat(stats.summary("k").count()).isEqualTo(1);
      assertThat(stats.summary("k").sum()).isEqualTo(1.5);
    }
  }

  @Test
  void badReplayId_failsTheStageWithIllegalArgument_andRecordsNothing() {
    ManualClock clock = ManualClock.at(TestEngines.startInstants()[0]);
    try (RedisEngine engine = engine(Mode.FUNCTIONS, clock)) {
      CounterStore counter = engine.counterStore(name(), WindowSpec.panes(TEN_SECONDS, 10));
      for (String bad : new String[] {"", "a b", "x}y", "é", "a".repeat(65), null}) {
        assertThat(counter.replayAsync("k", 1, clock.millis(), bad).toCompletableFuture())
            .as(String.valueOf(bad)).failsWithin(Duration.ofSeconds(1))
            .withThrowableOfType(java.util.concurrent.ExecutionException.class)
            .withCauseInstanceOf(IllegalArgumentException.class);
      }
      assertThat(counter.holdsState("k")).isFalse();
      await(counter.replayAsync("k", 1, clock.millis(), "Az09_.:-" + "a".repeat(56)));
      assertThat(counter.count("k")).isEqualTo(1);
    }
  }

  @Test
  void serverTime_replayIsPlacedByTheServersClock() {
    try (RedisEngine engine = RedisEngine.builder().uri(redis.uri()).build()) {
      CounterStore counter = engine.counterStore(name(), WindowSpec.log(TEN_SECONDS));
      long now = System.currentTimeMillis();
      await(counter.replayAsync("k", 3, now - 60_000, "old"));
      assertThat(counter.holdsState("k")).isFalse();
      await(counter.replayAsync("k", 2, now + 3_600_000, "future"));
      assertThat(counter.count("k")).isEqualTo(2);
    }
  }

  @Test
  void redis6_replaysThroughEval() {
    try (RedisServer old = RedisServer.startRedis6()) {
      ManualClock clock = ManualClock.at(base(TestEngines.startInstants()[0]) + 550);
      long base = clock.millis() - 550;
      try (RedisEngine engine = RedisEngine.builder().uri(old.uri()).clock(clock)
          .expiryGrace(TestEngines.TEST_GRACE).build()) {
        assertThat(engine.usesFunctions()).isFalse();
        Limit perSecond = Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10));
        LimiterStore limiter = engine.limiterStore(name(),
            Quota.of(perSecond, Limit.of(20, WindowSpec.weighted(TEN_SECONDS))));
        await(limiter.replayAsync("k", 12, base + 250, "r6"));
        await(limiter.replayAsync("k", 12, base + 250, "r6"));
        Decision d = limiter.tryAcquire("k", 1);
        assertThat(d.allowed()).isFalse();
        assertThat(d.retryAfterMillis()).isEqualTo(650);
        clock.set(base + 1_200);
        assertThat(limiter.tryAcquire("k", 1).remaining()).as("20 - 13: 12 replayed once")
            .isEqualTo(7);
        CounterStore counter = engine.counterStore(name(), WindowSpec.panes(TEN_SECONDS, 10));
        assertThat(counter.replayAsync("k", 1, base, "bad id").toCompletableFuture())
            .failsWithin(Duration.ofSeconds(1));
      }
    }
  }

  @Test
  void cluster_replaysAQuotaInOneSlot() {
    try (RedisCluster cluster = RedisCluster.start()) {
      long base = base(TestEngines.startInstants()[0]);
      ManualClock clock = ManualClock.at(base + 550);
      try (RedisEngine engine = RedisEngine.builder()
          .cluster(cluster.seedUris().toArray(new String[0])).clock(clock)
          .expiryGrace(TestEngines.TEST_GRACE).build()) {
        Limit perSecond = Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10));
        Limit perMinute = Limit.of(15, WindowSpec.log(Duration.ofMinutes(1)));
        LimiterStore limiter = engine.limiterStore(name(), Quota.of(perSecond, perMinute));
        StatsStore stats = engine.statsStore(name(), StatsSpec.histogram(TEN_SECONDS, 10));
        for (int i = 0; i < 20; i++) { // keys spread over the three primaries
          String key = "user:" + i;
          await(limiter.replayAsync(key, 12, base + 250, "c" + i));
          await(limiter.replayAsync(key, 12, base + 250, "c" + i));
          assertThat(limiter.tryAcquire(key, 1).deniedBy()).contains(perSecond);
          await(stats.replayAsync(key, new double[] {1, 2}, base + 100, "s" + i));
          assertThat(stats.summary(key).count()).isEqualTo(2);
        }
      }
    }
  }

  @Test
  void aFailedCall_failsTheStageWithTheEnginesException() {
    ManualClock clock = ManualClock.at(TestEngines.startInstants()[0]);
    String name = name();
    try (RedisEngine engine = engine(Mode.FUNCTIONS, clock); RespClient c = redis.client()) {
      c.command("SET", "wp1:c:{" + name + ":k:" + name.length() + "}:p10000/10", "not a hash");
      CounterStore counter = engine.counterStore(name, WindowSpec.panes(TEN_SECONDS, 10));
      assertThat(counter.replayAsync("k", 1, clock.millis(), "r").toCompletableFuture())
          .failsWithin(Duration.ofSeconds(2))
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withCauseInstanceOf(WindowpaneException.class);
      assertThat(c.command("EXISTS", "wp1:c:{" + name + ":k:" + name.length() + "}:p10000/10:y:r"))
          .as("no marker: a retry may still land").isEqualTo(0L);
    }
  }
}
