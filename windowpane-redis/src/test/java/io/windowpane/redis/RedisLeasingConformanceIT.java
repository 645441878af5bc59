package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.LeasingConformance;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The limiter parts of the conformance suite with hot-key leasing on every limiter
 * ({@link LeasingConformance}) through Redis Functions on a real redis-server.
 */
@ExtendWith(RedisServerExtension.class)
class RedisLeasingConformanceIT extends LeasingConformance {

  private final RedisServer redis;

  RedisLeasingConformanceIT(RedisServer redis) {
    this.redis = redis;
  }

  @Override
  protected long[] startInstants() {
    return TestEngines.startInstants();
  }

  @Override
  protected int concurrencyOperationsPerPhase() {
    return 300; // past every limit of the suite by the second phase (8 x 300 x 1.5 = 3,600)
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
  }
}
