package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConcurrencyConformance;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisClusterExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis engine on a real 3-primary Redis Cluster against {@link ConcurrencyConformance}. */
@ExtendWith(RedisClusterExtension.class)
class RedisClusterConcurrencyConformanceIT extends ConcurrencyConformance {

  private final RedisCluster cluster;

  RedisClusterConcurrencyConformanceIT(RedisCluster cluster) {
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
