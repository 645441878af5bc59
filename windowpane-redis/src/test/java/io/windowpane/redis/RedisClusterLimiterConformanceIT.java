package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.LimiterConformance;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisClusterExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis engine on a real 3-primary Redis Cluster against {@link LimiterConformance}. */
@ExtendWith(RedisClusterExtension.class)
class RedisClusterLimiterConformanceIT extends LimiterConformance {

  private final RedisCluster cluster;

  RedisClusterLimiterConformanceIT(RedisCluster cluster) {
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
