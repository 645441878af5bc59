package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis engine through EVALSHA (the Redis 6 path) on a real redis-server, against every part of the conformance suite. */
@ExtendWith(RedisServerExtension.class)
class RedisEvalshaConformanceIT extends RedisConformanceSuite {

  private final RedisServer redis;

  RedisEvalshaConformanceIT(RedisServer redis) {
    this.redis = redis;
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return TestEngines.standalone(redis, clock, ScriptMode.EVALSHA);
  }
}
