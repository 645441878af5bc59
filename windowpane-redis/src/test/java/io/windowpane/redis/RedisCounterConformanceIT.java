package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.CounterConformance;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis engine (Functions) on a real redis-server against {@link CounterConformance}. */
@ExtendWith(RedisServerExtension.class)
class RedisCounterConformanceIT extends CounterConformance {

  private final RedisServer redis;

  RedisCounterConformanceIT(RedisServer redis) {
    this.redis = redis;
  }

  @Override
  protected long[] startInstants() {
    return StandaloneEngines.startInstants();
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return StandaloneEngines.engine(redis, clock, ScriptMode.FUNCTIONS);
  }
}
