package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConcurrencyConformance;
import io.windowpane.testkit.conformance.LimiterConformance;
import io.windowpane.testkit.conformance.RandomizedModelConformance;
import io.windowpane.testkit.leasing.LeasingScenarios;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The limiter parts of the conformance suite with hot-key leasing on every limiter (Redis
 * Functions, a real redis-server): the same assertions, no tolerance (docs/leasing.md says why).
 * The counter tests that share those classes run again here, unchanged.
 */
@ExtendWith(RedisServerExtension.class)
class RedisLeasingConformanceIT {

  private final RedisServer redis;

  RedisLeasingConformanceIT(RedisServer redis) {
    this.redis = redis;
  }

  private Windowpane open(ManualClock clock) {
    return TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
  }

  @Nested
  class Limiters extends LimiterConformance {
    @Override
    protected long[] startInstants() {
      return TestEngines.startInstants();
    }

    @Override
    protected Quota underTest(Quota quota, ManualClock clock) {
      return LeasingScenarios.leasing(quota, clock);
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
      return TestEngines.startInstants();
    }

    @Override
    protected Quota underTest(Quota quota, ManualClock clock) {
      return LeasingScenarios.leasing(quota, clock);
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class Concurrency extends ConcurrencyConformance {
    @Override
    protected int operationsPerPhase() {
      return 500; // still past every limit of the suite (8 threads x 500 x 1.5 > 5,000)
    }

    @Override
    protected Quota underTest(Quota quota, ManualClock clock) {
      return LeasingScenarios.leasing(quota, clock);
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }
}
