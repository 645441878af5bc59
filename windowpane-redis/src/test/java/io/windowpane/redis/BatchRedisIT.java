package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.fault.FaultProxy;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Batches on one redis-server: one FCALL per batch (up to 1,000 keys a call), answers equal to
 * the single calls' at the same time (duplicates in a batch seen as two calls), bad keys refused
 * before any I/O, and a batch cut off by a lost connection failing its callers and recording no
 * key twice.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
@ExtendWith(RedisServerExtension.class)
class BatchRedisIT {

  private final RedisServer redis;
  private final ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 77);

  BatchRedisIT(RedisServer redis) {
    this.redis = redis;
  }

  private static List<String> keys(String prefix, int n) {
    List<String> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(prefix + (i % 7 == 3 ? 0 : i)); // every 7th key repeats key 0
    }
    return keys;
  }

  @Test
  void batches_answerAsTheSingleCalls_inOneCallPerThousandKeys() {
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
        RespClient admin = redis.client()) {
      for (WindowSpec spec : List.of(WindowSpec.panes(Duration.ofSeconds(1), 10),
          WindowSpec.weighted(Duration.ofSeconds(1)), WindowSpec.log(Duration.ofSeconds(1)))) {
        String s = spec.algorithm().name();
        WindowCounter batched = wp.counter("ba-" + s, spec);
        WindowCounter single = wp.counter("si-" + s, spec);
        RateLimiter batchedLimiter = wp.limiter("bl-" + s, Quota.of(Limit.of(3, spec),
            Limit.of(5, WindowSpec.panes(Duration.ofSeconds(2), 2))));
        RateLimiter singleLimiter = wp.limiter("sl-" + s, Quota.of(Limit.of(3, spec),
            Limit.of(5, WindowSpec.panes(Duration.ofSeconds(2), 2))));
        List<String> keys = keys("k", 300);
        for (int round = 0; round < 3; round++) {
          long before = GroupEquivalenceIT.fcalls(admin);
          List<Long> counts = batched.addAll(keys, 2);
          List<Decision> decisions = batchedLimiter.tryAcquireAll(keys, 1);
          List<Long> read = batched.countAll(keys);
          assertThat(GroupEquivalenceIT.fcalls(admin) - before).as("%s: FCALLs", s).isEqualTo(3);
          List<Long> expectedCounts = new ArrayList<>();
          List<Decision> expectedDecisions = new ArrayList<>();
          for (String key : keys) {
            expectedCounts.add(single.add(key, 2));
            expectedDecisions.add(singleLimiter.tryAcquire(key, 1));
          }
          assertThat(counts).as("%s round %d", s, round).isEqualTo(expectedCounts);
          assertThat(decisions).as("%s round %d", s, round).isEqualTo(expectedDecisions);
          assertThat(read).isEqualTo(single.countAll(keys));
          assertThat(decisions).anyMatch(d -> !d.allowed());
          clock.advance(450);
        }
      }
      WindowCounter big = wp.counter("big", WindowSpec.panes(Duration.ofSeconds(10), 10));
      List<String> many = new ArrayList<>();
      for (int i = 0; i < 2_500; i++) {
        many.add("m" + i);
      }
      long before = GroupEquivalenceIT.fcalls(admin);
      assertThat(big.addAll(many, 1)).containsOnly(1L).hasSize(2_500);
      assertThat(GroupEquivalenceIT.fcalls(admin) - before).isEqualTo(3);
    }
  }

  @Test
  void summaryAll_answersAsTheSingleSummaries_inOneCall() {
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
        RespClient admin = redis.client()) {
      for (StatsSpec spec : List.of(StatsSpec.histogram(Duration.ofSeconds(10), 10),
          StatsSpec.exact(Duration.ofSeconds(10)))) {
        WindowStats stats = wp.stats("st-" + spec.isExact(), spec);
        List<String> keys = List.of("a", "b", "never", "a");
        stats.recordAll("a", 1.5, 2.25, -3);
        clock.advance(1_000);
        stats.recordAll("b", 1e-9, 7);
        long before = GroupEquivalenceIT.fcalls(admin);
        List<Summary> all = stats.summaryAll(keys);
        assertThat(GroupEquivalenceIT.fcalls(admin) - before).isEqualTo(1);
        for (int i = 0; i < keys.size(); i++) {
          Summary one = stats.summary(keys.get(i));
          assertThat(all.get(i).count()).isEqualTo(one.count());
          assertThat(Double.compare(all.get(i).sum(), one.sum())).isZero();
          assertThat(Double.compare(all.get(i).quantile(0.5), one.quantile(0.5))).isZero();
        }
        assertThat(all.get(0).count()).isEqualTo(3);
        assertThat(all.get(2).count()).isZero();
      }
    }
  }

  @Test
  void recordAll_ofManyKeys_isOneCall_andLeavesWhatTheSingleRecordsLeave() {
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
        RespClient admin = redis.client()) {
      for (StatsSpec spec : List.of(StatsSpec.histogram(Duration.ofSeconds(10), 10),
          StatsSpec.exact(Duration.ofSeconds(10)))) {
        WindowStats batched = wp.stats("rb-" + spec.isExact(), spec);
        WindowStats single = wp.stats("rs-" + spec.isExact(), spec);
        List<String> keys = List.of("a", "b", "a", "c");
        List<double[]> values = List.of(new double[] {1.5, 2.25}, new double[] {-3},
            new double[] {1e-9, 7, 7}, new double[] {0.1});
        long before = GroupEquivalenceIT.fcalls(admin);
        batched.recordAll(keys, values);
        assertThat(GroupEquivalenceIT.fcalls(admin) - before).as("FCALLs").isEqualTo(1);
        for (int i = 0; i < keys.size(); i++) {
          single.recordAll(keys.get(i), values.get(i));
        }
        for (String key : List.of("a", "b", "c")) {
          Summary b = batched.summary(key);
          Summary o = single.summary(key);
          assertThat(b.count()).isEqualTo(o.count());
          assertThat(Double.compare(b.sum(), o.sum())).isZero();
          assertThat(Double.compare(b.quantile(0.5), o.quantile(0.5))).isZero();
        }
        assertThat(batched.summary("a").count()).isEqualTo(5);
      }
    }
  }

  @Test
  void recordAll_anItemAFullExactWindowRefuses_failsAlone_theOthersAreRecorded() {
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS)) {
      WindowStats stats = wp.stats("full", StatsSpec.exact(Duration.ofSeconds(10))
          .withMaxValues(2));
      List<CompletableFuture<Void>> calls = new ArrayList<>();
      stats.recordAllAsync(List.of("x", "y", "z"), List.of(new double[] {1},
          new double[] {1, 2, 3}, new double[] {4, 5}))
          .forEach(stage -> calls.add(stage.toCompletableFuture()));
      assertThat(calls.get(0)).succeedsWithin(Duration.ofSeconds(5));
      assertThat(calls.get(1)).failsWithin(Duration.ofSeconds(5))
          .withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(io.windowpane.CapacityExceededException.class);
      assertThat(calls.get(2)).succeedsWithin(Duration.ofSeconds(5));
      assertThat(stats.summary("y").count()).isZero();
      assertThat(stats.summary("z").count()).isEqualTo(2);
      assertThatThrownBy(() -> stats.recordAll(List.of("x", "y"), List.of(new double[] {1},
          new double[] {Double.NaN}))).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("values[1]: ");
      assertThat(stats.summary("x").count()).as("nothing sent").isEqualTo(1);
    }
  }

  @Test
  void aBadKeyInABatch_isRefusedBeforeAnyIo_namingIt() {
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
        RespClient admin = redis.client()) {
      WindowCounter counter = wp.counter("bad", WindowSpec.panes(Duration.ofSeconds(1), 10));
      RateLimiter limiter = wp.limiter("badl", Limit.of(5, WindowSpec.log(Duration.ofSeconds(1))));
      List<String> keys = new ArrayList<>(List.of("a", "b", "", "c"));
      long before = GroupEquivalenceIT.fcalls(admin);
      assertThatThrownBy(() -> counter.addAll(keys, 1))
          .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("keys[2]: ");
      assertThatThrownBy(() -> limiter.tryAcquireAllAsync(keys, 1))
          .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("keys[2]: ");
      keys.set(2, "x".repeat(257));
      assertThatThrownBy(() -> counter.countAll(keys))
          .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("keys[2]: ");
      assertThat(GroupEquivalenceIT.fcalls(admin)).isEqualTo(before);
      assertThat(counter.count("a")).isZero();
    }
  }

  /**
   * Four callers' batches (3 calls of up to 1,000 keys each) in flight when every connection
   * is cut: each caller's batch fails, and no key is counted twice (each 0 or 1).
   */
  @Test
  void aBatchCutOffMidway_failsEachCaller_andRecordsNoKeyTwice() throws Exception {
    try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
        Windowpane wp = Windowpane.using(RedisEngine.builder()
            .uri("redis://" + proxy.host() + ":" + proxy.port()).clock(clock)
            .expiryGrace(TestEngines.TEST_GRACE).timeout(Duration.ofSeconds(5)).build());
        Windowpane direct = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS)) {
      WindowCounter counter = wp.counter("cut", WindowSpec.panes(Duration.ofMinutes(1), 6));
      proxy.latency(Duration.ofMillis(300));
      List<CompletableFuture<List<Long>>> callers = new ArrayList<>();
      List<List<String>> batches = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
          keys.add("c" + c + ":" + i);
        }
        batches.add(keys);
        callers.add(counter.addAllAsync(keys, 1).toCompletableFuture());
      }
      TimeUnit.MILLISECONDS.sleep(100); // the calls are on the wire, held by the proxy
      proxy.dropConnections();
      proxy.pass();
      for (CompletableFuture<List<Long>> caller : callers) {
        assertThat(caller).failsWithin(Duration.ofSeconds(10))
            .withThrowableOfType(ExecutionException.class)
            .withCauseInstanceOf(WindowpaneException.class);
      }
      WindowCounter check = direct.counter("cut", WindowSpec.panes(Duration.ofMinutes(1), 6));
      for (List<String> keys : batches) {
        assertThat(check.countAll(keys)).allMatch(n -> n == 0 || n == 1);
      }
    }
  }
}
