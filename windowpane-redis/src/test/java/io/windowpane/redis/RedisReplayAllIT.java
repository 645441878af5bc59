package io.windowpane.redis;

import static io.windowpane.testkit.replay.ReplayBatches.await;
import static io.windowpane.testkit.replay.ReplayBatches.batches;
import static io.windowpane.testkit.replay.ReplayBatches.counts;
import static io.windowpane.testkit.replay.ReplayBatches.mixed;
import static io.windowpane.testkit.replay.ReplayBatches.oneByOne;
import static io.windowpane.testkit.replay.ReplayBatches.quota;
import static io.windowpane.testkit.replay.ReplayBatches.summaries;
import static io.windowpane.testkit.replay.ReplayBatches.withValues;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.ReplayBatch;
import io.windowpane.spi.StatsStore;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import io.windowpane.testkit.replay.ReplayBatches;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code replayAllAsync} on Redis ({@code wp_replay_all}, {@code wp_replay_record_all},
 * {@code wp_replay_xrecord_all}): many replays of one store in one call per node record exactly
 * what the same replays sent one by one record, on panes, weighted and log windows, a
 * multi-limit quota, histogram and exact statistics, on one server (FCALL and EVALSHA),
 * Redis 6 and the 3-primary Cluster. Each store is compared with a twin store (another name)
 * fed the same batches one by one, now and after the clock moves on; a batch sent again changes
 * nothing, a batch mixing landed and new ids applies only the new ones, and a malformed id
 * fails the stage before any I/O.
 */
@ExtendWith(RedisServerExtension.class)
class RedisReplayAllIT {

  private static final Duration TEN_SECONDS = Duration.ofSeconds(10);
  private static final AtomicInteger NAMES = new AtomicInteger();

  private final RedisServer redis;

  RedisReplayAllIT(RedisServer redis) {
    this.redis = redis;
  }

  private static String name() {
    return "replayall" + NAMES.incrementAndGet();
  }

  private static long base() {
    return Math.floorDiv(TestEngines.startInstants()[0], 10_000) * 10_000;
  }

  /** Each key's peek of one permit. */
  private static List<String> decisions(LimiterStore store) {
    return ReplayBatches.decisions(k -> store.peek(k, 1).orElseThrow());
  }

  private static List<WindowSpec> windows() {
    return List.of(WindowSpec.panes(TEN_SECONDS, 10), WindowSpec.weighted(TEN_SECONDS),
        WindowSpec.log(TEN_SECONDS));
  }

  /**
   * On {@code engine} (clock at base + 9,500): every window and the quota, a batch store against
   * its one-by-one twin, then the batch again, then a mixed batch, then later.
   */
  private static void batchRecordsWhatOneByOneRecords(RedisEngine engine, ManualClock clock,
      long base) {
    List<CounterStore[]> counters = new ArrayList<>();
    for (WindowSpec spec : windows()) {
      CounterStore[] pair = {engine.counterStore(name(), spec), engine.counterStore(name(), spec)};
      oneByOne(pair[0], batches(base, "b"));
      await(pair[1].replayAllAsync(batches(base, "b")));
      assertThat(counts(pair[1])).as(spec.toString()).isEqualTo(counts(pair[0]))
          .anySatisfy(n -> assertThat(n).isPositive());
      List<Long> before = counts(pair[1]);
      await(pair[1].replayAllAsync(batches(base, "b")));
      assertThat(counts(pair[1])).as(spec + ": the same ids again").isEqualTo(before);
      oneByOne(pair[0], mixed(base));
      await(pair[1].replayAllAsync(mixed(base)));
      assertThat(counts(pair[1])).as(spec + ": mixed").isEqualTo(counts(pair[0]))
          .isNotEqualTo(before);
      counters.add(pair);
    }
    LimiterStore one = engine.limiterStore(name(), quota());
    LimiterStore all = engine.limiterStore(name(), quota());
    oneByOne(one, batches(base, "b"));
    await(all.replayAllAsync(batches(base, "b")));
    assertThat(decisions(all)).isEqualTo(decisions(one))
        .anySatisfy(d -> assertThat(d).startsWith("false/"));
    List<String> before = decisions(all);
    await(all.replayAllAsync(batches(base, "b")));
    assertThat(decisions(all)).as("the same ids again").isEqualTo(before);
    oneByOne(one, mixed(base));
    await(all.replayAllAsync(mixed(base)));
    assertThat(decisions(all)).as("mixed").isEqualTo(decisions(one));

    List<StatsStore[]> stats = new ArrayList<>();
    for (StatsSpec spec : new StatsSpec[] {StatsSpec.histogram(TEN_SECONDS, 10),
        StatsSpec.exact(TEN_SECONDS), StatsSpec.exact(TEN_SECONDS).withMaxValues(12)}) {
      StatsStore[] pair = {engine.statsStore(name(), spec), engine.statsStore(name(), spec)};
      oneByOne(pair[0], withValues(batches(base, "b")));
      await(pair[1].replayAllAsync(withValues(batches(base, "b"))));
      assertThat(summaries(pair[1])).as(spec.toString()).isEqualTo(summaries(pair[0]))
          .anySatisfy(d -> assertThat(d).isNotEqualTo("empty"));
      List<String> held = summaries(pair[1]);
      await(pair[1].replayAllAsync(withValues(batches(base, "b"))));
      assertThat(summaries(pair[1])).as(spec + ": the same ids again").isEqualTo(held);
      oneByOne(pair[0], withValues(mixed(base)));
      await(pair[1].replayAllAsync(withValues(mixed(base))));
      assertThat(summaries(pair[1])).as(spec + ": mixed").isEqualTo(summaries(pair[0]));
      stats.add(pair);
    }

    for (long later : new long[] {base + 10_000, base + 13_400, base + 19_000, base + 25_000}) {
      clock.set(later); // the replayed events leave with their own times
      for (CounterStore[] pair : counters) {
        assertThat(counts(pair[1])).as("at base + " + (later - base)).isEqualTo(counts(pair[0]));
      }
      assertThat(decisions(all)).as("at base + " + (later - base)).isEqualTo(decisions(one));
      for (StatsStore[] pair : stats) {
        assertThat(summaries(pair[1])).as("at base + " + (later - base))
            .isEqualTo(summaries(pair[0]));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = ScriptMode.class, names = {"FUNCTIONS", "EVALSHA"})
  void singleServer_batchRecordsWhatOneByOneRecords(ScriptMode mode) {
    long base = base();
    ManualClock clock = ManualClock.at(base + 9_500);
    try (RedisEngine engine = RedisEngine.builder().uri(redis.uri()).clock(clock).scripts(mode)
        .expiryGrace(TestEngines.TEST_GRACE).build()) {
      batchRecordsWhatOneByOneRecords(engine, clock, base);
    }
  }

  @ParameterizedTest
  @EnumSource(value = ScriptMode.class, names = {"FUNCTIONS", "EVALSHA"})
  void singleServer_sixtyFiveReplays_areOneCall(ScriptMode mode) {
    long base = base();
    ManualClock clock = ManualClock.at(base + 9_500);
    try (RedisEngine engine = RedisEngine.builder().uri(redis.uri()).clock(clock).scripts(mode)
        .expiryGrace(TestEngines.TEST_GRACE).build(); RespClient c = redis.client()) {
      LimiterStore limiter = engine.limiterStore(name(), quota());
      limiter.peek("k0", 1); // the library is loaded and the script cached
      c.command("CONFIG", "RESETSTAT");
      await(limiter.replayAllAsync(batches(base, "b")));
      String command = mode == ScriptMode.FUNCTIONS ? "fcall" : "evalsha";
      assertThat(calls(c, command)).isEqualTo(1);
      for (StatsSpec spec : new StatsSpec[] {StatsSpec.histogram(TEN_SECONDS, 10),
          StatsSpec.exact(TEN_SECONDS)}) {
        StatsStore stats = engine.statsStore(name(), spec);
        stats.summary("k0");
        c.command("CONFIG", "RESETSTAT");
        await(stats.replayAllAsync(withValues(batches(base, "b"))));
        assertThat(calls(c, command)).as(spec.toString()).isEqualTo(1);
      }
    }
  }

  private static long calls(RespClient c, String command) {
    Matcher m = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)")
        .matcher(String.valueOf(c.command("INFO", "commandstats")));
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  @Test
  void redis6_batchRecordsWhatOneByOneRecords() {
    try (RedisServer old = RedisServer.startRedis6()) {
      long base = base();
      ManualClock clock = ManualClock.at(base + 9_500);
      try (RedisEngine engine = RedisEngine.builder().uri(old.uri()).clock(clock)
          .expiryGrace(TestEngines.TEST_GRACE).build()) {
        assertThat(engine.usesFunctions()).isFalse();
        batchRecordsWhatOneByOneRecords(engine, clock, base);
      }
    }
  }

  @Test
  void cluster_batchRecordsWhatOneByOneRecords_throughFunctionsAndEvalsha() {
    try (RedisCluster cluster = RedisCluster.start()) {
      for (ScriptMode mode : new ScriptMode[] {ScriptMode.FUNCTIONS, ScriptMode.EVALSHA}) {
        long base = base();
        ManualClock clock = ManualClock.at(base + 9_500);
        try (RedisEngine engine = RedisEngine.builder()
            .cluster(cluster.seedUris().toArray(new String[0])).clock(clock).scripts(mode)
            .expiryGrace(TestEngines.TEST_GRACE).build()) {
          batchRecordsWhatOneByOneRecords(engine, clock, base);
        }
      }
    }
  }

  @Test
  void aMalformedId_failsTheStageBeforeAnyIo_andRecordsNothing() {
    long base = base();
    ManualClock clock = ManualClock.at(base + 9_500);
    try (RedisEngine engine = RedisEngine.builder().uri(redis.uri()).clock(clock)
        .expiryGrace(TestEngines.TEST_GRACE).build()) {
      CounterStore counter = engine.counterStore(name(), WindowSpec.panes(TEN_SECONDS, 10));
      LimiterStore limiter = engine.limiterStore(name(), quota());
      for (String bad : new String[] {"", "a b", "x}y", "a".repeat(65), null}) {
        List<ReplayBatch> batch = List.of(new ReplayBatch("k0", 1, null, base, "good"),
            new ReplayBatch("k1", 1, null, base, bad));
        assertThat(counter.replayAllAsync(batch).toCompletableFuture())
            .as(String.valueOf(bad)).failsWithin(Duration.ofSeconds(1))
            .withThrowableOfType(ExecutionException.class)
            .withCauseInstanceOf(IllegalArgumentException.class);
        assertThat(limiter.replayAllAsync(batch).toCompletableFuture())
            .as(String.valueOf(bad)).failsWithin(Duration.ofSeconds(1))
            .withThrowableOfType(ExecutionException.class)
            .withCauseInstanceOf(IllegalArgumentException.class);
      }
      StatsStore stats = engine.statsStore(name(), StatsSpec.histogram(TEN_SECONDS, 10));
      List<ReplayBatch> badStats = List.of(
          new ReplayBatch("k0", 1, new double[] {1}, base, "good"),
          new ReplayBatch("k1", 1, new double[] {1}, base, "a b"));
      assertThat(stats.replayAllAsync(badStats).toCompletableFuture())
          .failsWithin(Duration.ofSeconds(1))
          .withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(IllegalArgumentException.class);
      assertThat(stats.summary("k0").isEmpty()).as("the good batch was not sent").isTrue();
      assertThat(counter.holdsState("k0")).as("the good batch was not sent").isFalse();
      assertThat(limiter.peek("k0", 1).orElseThrow().remaining()).isEqualTo(9);
      await(counter.replayAllAsync(List.of()));
    }
  }
}
