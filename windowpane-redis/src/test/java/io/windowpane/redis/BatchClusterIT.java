package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.windowpane.Decision;
import io.windowpane.KeyCreationRefusedException;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.MemoryStatus;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisClusterExtension;
import io.windowpane.testkit.redis.RedisClusterNode;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Batches on a real 3-primary Redis Cluster: one FCALL per node (the keys of the node's other
 * slots passed after the spec, served through allow-cross-slot-keys), answers equal to the
 * single calls', and a slot moved behind the client's back sent again by slot, nothing twice.
 */
@ExtendWith(RedisClusterExtension.class)
class BatchClusterIT {

  private final RedisCluster cluster;

  BatchClusterIT(RedisCluster cluster) {
    this.cluster = cluster;
  }

  private long fcalls() {
    long sum = 0;
    for (RedisClusterNode node : cluster.nodes()) {
      try (RespClient c = node.client()) {
        sum += GroupEquivalenceIT.fcalls(c);
      }
    }
    return sum;
  }

  private static List<String> keys(String prefix, int n) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(prefix + (i % 5 == 4 ? 1 : i));
    }
    return keys;
  }

  @Test
  void batches_oneCallPerNode_answerAsTheSingleCalls() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 5);
    try (Windowpane wp = TestEngines.cluster(cluster, clock)) {
      WindowSpec spec = WindowSpec.panes(Duration.ofSeconds(1), 10);
      WindowCounter batched = wp.counter("cba", spec);
      WindowCounter single = wp.counter("csi", spec);
      RateLimiter batchedLimiter = wp.limiter("cbl", Limit.of(3, WindowSpec.log(
          Duration.ofSeconds(1))));
      RateLimiter singleLimiter = wp.limiter("csl", Limit.of(3, WindowSpec.log(
          Duration.ofSeconds(1))));
      List<String> keys = keys("k", 200);
      for (int round = 0; round < 3; round++) {
        long before = fcalls();
        List<Long> counts = batched.addAll(keys, 1);
        assertThat(fcalls() - before).as("FCALLs of one batch").isEqualTo(3);
        List<Decision> decisions = batchedLimiter.tryAcquireAll(keys, 1);
        List<Long> expected = new ArrayList<>();
        List<Decision> expectedDecisions = new ArrayList<>();
        for (String key : keys) {
          expected.add(single.add(key, 1));
          expectedDecisions.add(singleLimiter.tryAcquire(key, 1));
        }
        assertThat(counts).isEqualTo(expected);
        assertThat(decisions).isEqualTo(expectedDecisions);
        assertThat(batched.countAll(keys)).isEqualTo(single.countAll(keys));
        clock.advance(300);
      }
    }
  }

  /** recordAll over 200 keys of every node: one call per node, the single records' state. */
  @Test
  void recordAll_oneCallPerNode_leavesWhatTheSingleRecordsLeave() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 5);
    try (Windowpane wp = TestEngines.cluster(cluster, clock)) {
      for (StatsSpec spec : List.of(StatsSpec.histogram(Duration.ofSeconds(10), 10),
          StatsSpec.exact(Duration.ofSeconds(10)))) {
        WindowStats batched = wp.stats("crb-" + spec.isExact(), spec);
        WindowStats single = wp.stats("crs-" + spec.isExact(), spec);
        List<String> keys = keys("k", 200);
        List<double[]> values = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
          values.add(new double[] {i, 0.5 * i});
        }
        long before = fcalls();
        batched.recordAll(keys, values);
        assertThat(fcalls() - before).as("FCALLs of one batch").isEqualTo(3);
        for (int i = 0; i < keys.size(); i++) {
          single.recordAll(keys.get(i), values.get(i));
        }
        for (String key : keys) {
          assertThat(batched.summary(key).count()).isEqualTo(single.summary(key).count());
          assertThat(Double.compare(batched.summary(key).sum(), single.summary(key).sum()))
              .isZero();
        }
      }
    }
  }

  /**
   * A slot moved after the engine learnt the topology: the batch call that still counts it on
   * its old node fails there before writing anything, and its items are sent again by slot.
   */
  @Test
  void aSlotMovedBehindTheClient_theBatchIsSentAgainBySlot_nothingTwice() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 9);
    try (Windowpane wp = TestEngines.cluster(cluster, clock)) {
      WindowCounter counter = wp.counter("cmv", WindowSpec.panes(Duration.ofSeconds(10), 10));
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        keys.add("m" + i);
      }
      assertThat(counter.addAll(keys, 1)).containsOnly(1L);
      // the last key of some node that holds at least two keys of the batch: an extra key
      String moved = null;
      RedisClusterNode from = null;
      for (int i = keys.size() - 1; i >= 0 && moved == null; i--) {
        RedisClusterNode owner = cluster.nodeOwning(RedisCluster.slotOf("{cmv:" + keys.get(i)
            + "}"));
        for (int j = 0; j < i; j++) {
          if (cluster.nodeOwning(RedisCluster.slotOf("{cmv:" + keys.get(j) + "}")) == owner) {
            moved = keys.get(i);
            from = owner;
            break;
          }
        }
      }
      assertThat(moved).isNotNull();
      RedisClusterNode to = cluster.nodes().get((cluster.nodes().indexOf(from) + 1) % 3);
      cluster.migrateSlot(RedisCluster.slotOf("{cmv:" + moved + "}"), from, to);
      assertThat(counter.addAll(keys, 1)).containsOnly(2L);
      assertThat(counter.countAll(keys)).containsOnly(2L);
    }
  }

  /** The first of {@code prefix0, prefix1, ...} whose key of counter "mem" is, or not, on node. */
  private String newKey(String prefix, RedisClusterNode node, boolean on) {
    for (int i = 0; ; i++) {
      String key = prefix + i;
      if ((cluster.nodeOwning(RedisCluster.slotOf("{mem:" + key + ":3}")) == node) == on) {
        return key;
      }
    }
  }

  @Test
  void memoryPressureOnOnePrimary_refusesOnlyTheNewKeysBoundForIt() {
    RedisClusterNode hot = cluster.nodeOwning(RedisCluster.slotOf("{mem:old:3}"));
    try (RedisEngine engine = RedisEngine.builder()
            .cluster(cluster.seedUris().toArray(new String[0]))
            .memoryCheckInterval(Duration.ofMinutes(1)).timeout(TestEngines.TEST_TIMEOUT)
            .build();
        Windowpane wp = Windowpane.using(engine); RespClient admin = hot.client()) {
      WindowCounter counter = wp.counter("mem", WindowSpec.panes(Duration.ofMinutes(1), 6));
      assertThat(counter.add("old", 1)).isEqualTo(1);
      MemoryGuardIT.maxmemoryAt(admin, 0.90, "noeviction"); // this primary only
      try {
        assertThat(MemoryGuardIT.check(engine).level()).as("the worst primary's")
            .isEqualTo(MemoryStatus.Level.PRESSURE);
        String there = newKey("n", hot, true);
        String elsewhere = newKey("n", hot, false);
        KeyCreationRefusedException e = catchThrowableOfType(
            () -> counter.addAll(List.of("old", there, elsewhere), 1),
            KeyCreationRefusedException.class);
        assertThat(e.answers().orElseThrow()).containsExactly(2L, null, 1L);
        assertThatThrownBy(() -> counter.add(there, 1))
            .isInstanceOf(KeyCreationRefusedException.class);
        assertThat(counter.add(newKey("m", hot, false), 1)).as("a primary not under pressure")
            .isEqualTo(1);
        assertThat(counter.count(there)).isZero();
      } finally {
        admin.command("CONFIG", "SET", "maxmemory", "0");
      }
    }
  }
}
