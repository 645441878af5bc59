package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.conformance.RandomizedModelConformance;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisClusterExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Redis engine on a real 3-primary Redis Cluster, against every part of the conformance
 * suite but the randomized model: its steps are single calls on one key each, which a cluster
 * routes to one primary running the same functions as a single server
 * ({@link RedisFunctionsConformanceIT} runs them). Batches, groups and concurrent calls, which a
 * cluster splits and coalesces per node, run here.
 */
@ExtendWith(RedisClusterExtension.class)
class RedisClusterConformanceIT extends RedisConformanceSuite {

  private final RedisCluster cluster;

  RedisClusterConformanceIT(RedisCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  protected boolean runs(Class<? extends ConformanceBase> part) {
    return part != RandomizedModelConformance.class;
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return TestEngines.cluster(cluster, clock);
  }
}
