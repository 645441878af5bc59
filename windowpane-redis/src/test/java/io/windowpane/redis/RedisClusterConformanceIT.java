package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisClusterExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis engine on a real 3-primary Redis Cluster, against every part of the conformance suite. */
@ExtendWith(RedisClusterExtension.class)
class RedisClusterConformanceIT extends RedisConformanceSuite {

  private final RedisCluster cluster;

  RedisClusterConformanceIT(RedisCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return TestEngines.cluster(cluster, clock);
  }
}
