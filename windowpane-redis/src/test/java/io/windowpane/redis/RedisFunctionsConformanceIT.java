package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConcurrencyConformance;
import io.windowpane.testkit.conformance.CounterConformance;
import io.windowpane.testkit.conformance.LimiterConformance;
import io.windowpane.testkit.conformance.RandomizedModelConformance;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis engine through Redis Functions (FCALL) on a real redis-server, against every part of the conformance suite. */
@ExtendWith(RedisServerExtension.class)
class RedisFunctionsConformanceIT {

  private final RedisServer redis;

  RedisFunctionsConformanceIT(RedisServer redis) {
    this.redis = redis;
  }

  private Windowpane open(ManualClock clock) {
    return StandaloneEngines.engine(redis, clock, ScriptMode.FUNCTIONS);
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
