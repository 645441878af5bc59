package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConcurrencyConformance;
import io.windowpane.testkit.conformance.CounterConformance;
import io.windowpane.testkit.conformance.LimiterConformance;
import io.windowpane.testkit.conformance.RandomizedModelConformance;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisClusterExtension;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis engine on a real 3-primary Redis Cluster, against every part of the conformance suite. */
@ExtendWith(RedisClusterExtension.class)
class RedisClusterConformanceIT {

  private final RedisCluster cluster;

  RedisClusterConformanceIT(RedisCluster cluster) {
    this.cluster = cluster;
  }

  private Windowpane open(ManualClock clock) {
    return ClusterEngines.engine(cluster, clock);
  }

  @Nested
  class Counters extends CounterConformance {
    @Override
    protected long[] startInstants() {
      return StandaloneEngines.startInstants();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class Limiters extends LimiterConformance {
    @Override
    protected long[] startInstants() {
      return StandaloneEngines.startInstants();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class RandomizedModel extends RandomizedModelConformance {
    @Override
    protected long[] startInstants() {
      return StandaloneEngines.startInstants();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class Concurrency extends ConcurrencyConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }
}
