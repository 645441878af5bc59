package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Redis engine on a real Redis 6.2 (no Functions; the testkit unpacks it from a Maven Central
 * artifact), with the script mode left to {@code AUTO}: every part of the conformance suite.
 */
class Redis6ConformanceIT extends RedisConformanceSuite {

  @RegisterExtension
  static final RedisServerExtension REDIS = RedisServerExtension.redis6();

  private final RedisServer redis;

  Redis6ConformanceIT(RedisServer redis) {
    this.redis = redis;
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return TestEngines.standalone(redis, clock, ScriptMode.AUTO);
  }

  @Test
  void server_isRedis6WithoutFunctions() {
    try (RespClient client = redis.client()) {
      assertThat((String) client.command("INFO", "server")).contains("redis_version:6.2.");
      assertThat(String.valueOf(client.command("COMMAND", "INFO", "FCALL")))
          .doesNotContain("fcall");
    }
  }
}
