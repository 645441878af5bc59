package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisCluster;

/** Engines on a testkit Redis Cluster for the conformance suite. */
final class ClusterEngines {

  private ClusterEngines() {}

  /** An engine on {@code cluster} whose calls carry {@code clock}'s time. */
  static Windowpane engine(RedisCluster cluster, ManualClock clock) {
    return Windowpane.using(RedisEngine.builder()
        .cluster(cluster.seedUris().toArray(new String[0]))
        .clock(clock).expiryGrace(StandaloneEngines.TEST_GRACE).build());
  }
}
