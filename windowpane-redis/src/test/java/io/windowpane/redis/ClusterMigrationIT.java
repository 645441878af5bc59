package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.redis.internal.FunctionLibrary;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisClusterExtension;
import io.windowpane.testkit.redis.RedisClusterNode;
import io.windowpane.testkit.redis.RespClient;
import io.windowpane.testkit.redis.SlotMigration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Redis Cluster specifics: the library on every primary, and a live slot migration under load
 * (MOVED and ASK followed by the client, TRYAGAIN repeated by the engine) with exact totals.
 */
@ExtendWith(RedisClusterExtension.class)
class ClusterMigrationIT {

  private static final int THREADS = 4;

  private final RedisCluster cluster;

  ClusterMigrationIT(RedisCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void theLibraryIsLoadedOnEveryPrimary() {
    try (Windowpane wp = TestEngines.cluster(cluster, ManualClock.at(1_700_000_000_000L))) {
      assertThat(cluster.nodes()).hasSize(3);
      for (RedisClusterNode node : cluster.nodes()) {
        try (RespClient c = node.client()) {
          assertThat(c.command("FCALL", "wp_version", "0"))
              .isEqualTo((long) FunctionLibrary.bundled().version());
        }
      }
      // keys of many logical keys land on every node
      WindowCounter counter = wp.counter("spread", WindowSpec.panes(Duration.ofSeconds(1), 10));
      for (int i = 0; i < 60; i++) {
        assertThat(counter.add("k" + i)).isEqualTo(1);
      }
      for (RedisClusterNode node : cluster.nodes()) {
        try (RespClient c = node.client()) {
          assertThat((Long) c.command("DBSIZE")).as("node %s", node.port()).isPositive();
        }
      }
    }
  }

  @Test
  void slotMigrationUnderLoad_losesAndDoublesNothing() throws Exception {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (Windowpane wp = TestEngines.cluster(cluster, clock)) {
      WindowCounter counter = wp.counter("mig", WindowSpec.panes(Duration.ofMinutes(1), 60));
      long limit = 6_000;
      RateLimiter limiter = wp.limiter("mig", Quota.of(
          Limit.of(limit, WindowSpec.log(Duration.ofMinutes(1))),
          Limit.of(limit * 2, WindowSpec.panes(Duration.ofMinutes(1), 6))));
      int slot = RedisCluster.slotOf("{mig:hot}");
      RedisClusterNode from = cluster.nodeOwning(slot);
      RedisClusterNode to = cluster.nodes().stream().filter(n -> n != from).findFirst()
          .orElseThrow();
      counter.add("hot"); // the keys exist on the source before the migration starts
      limiter.tryConsume("hot", 1);

      AtomicBoolean migrated = new AtomicBoolean();
      List<Future<long[]>> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        workers.add(pool.submit(() -> {
          long added = 0;
          long allowed = 0;
          for (int i = 0; !migrated.get() || i < 3_000; i++) {
            counter.add("hot", 2);
            added += 2;
            if (limiter.tryConsume("hot", 1)) {
              allowed++;
            }
          }
          return new long[] {added, allowed};
        }));
      }
      Thread.sleep(200); // let traffic flow first (timing only widens the overlap)
      SlotMigration migration = cluster.beginSlotMigration(slot, from, to);
      Thread.sleep(200); // traffic while the slot is MIGRATING / IMPORTING: ASK redirections
      migration.moveAllKeys();
      Thread.sleep(200);
      migration.finish();
      migrated.set(true);

      long added = 1;
      long allowed = 1;
      for (Future<long[]> f : workers) {
        long[] r = f.get(2, TimeUnit.MINUTES);
        added += r[0];
        allowed += r[1];
      }
      assertThat(cluster.nodeOwning(slot)).isSameAs(to);
      assertThat(counter.count("hot")).isEqualTo(added);
      assertThat(allowed).isEqualTo(limit);
      assertThat(limiter.tryAcquire("hot", 1).allowed()).isFalse();
      try (RespClient c = to.client()) {
        assertThat((Long) c.command("EXISTS", "wp1:c:{mig:hot:3}:p60000/60")).isEqualTo(1L);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
