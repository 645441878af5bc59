package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConcurrencyConformance;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis engine (Functions) on a real redis-server against {@link ConcurrencyConformance}. */
@ExtendWith(RedisServerExtension.class)
class RedisConcurrencyConformanceIT extends ConcurrencyConformance {

  private final RedisServer redis;

  RedisConcurrencyConformanceIT(RedisServer redis) {
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
