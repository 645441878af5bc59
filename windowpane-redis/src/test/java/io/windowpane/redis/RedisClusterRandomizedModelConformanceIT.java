package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.RandomizedModelConformance;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisClusterExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis engine on a real 3-primary Redis Cluster against {@link RandomizedModelConformance}. */
@ExtendWith(RedisClusterExtension.class)
class RedisClusterRandomizedModelConformanceIT extends RandomizedModelConformance {

  private final RedisCluster cluster;

  RedisClusterRandomizedModelConformanceIT(RedisCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  protected long[] startInstants() {
    return StandaloneEngines.startInstants();
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return ClusterEngines.engine(cluster, clock);
  }
}
