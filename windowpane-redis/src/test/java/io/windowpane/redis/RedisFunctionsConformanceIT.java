package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis engine through Redis Functions (FCALL) on a real redis-server, against every part of the conformance suite. */
@ExtendWith(RedisServerExtension.class)
class RedisFunctionsConformanceIT extends RedisConformanceSuite {

  private final RedisServer redis;

  RedisFunctionsConformanceIT(RedisServer redis) {
    this.redis = redis;
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
  }
}
