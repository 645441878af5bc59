package io.windowpane.server.config;

import io.windowpane.config.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Windowpane;
import io.windowpane.WindowSpec;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link EngineConfig#open()} against a real password-protected {@code redis-server}. */
class EngineConfigRedisIT {

  @RegisterExtension
  static final RedisServerExtension REDIS = RedisServerExtension.withPassword("it-s3cret");

  private static EngineConfig engine(RedisServer redis, String password) throws Exception {
    return ServerConfig.parse("""
        engine:
          type: redis
          redis:
            uri: %s
            password: %s
            database: 2
            timeout: 2s
            scripts: evalsha
        """.formatted(redis.uri(), password), "it.yaml").engine();
  }

  @Test
  void open_redisWithEveryOption_servesACounter(RedisServer redis) throws Exception {
    try (Windowpane wp = engine(redis, "it-s3cret").open()) {
      assertThat(wp.engineName()).isEqualTo("redis");
      assertThat(wp.counter("it", WindowSpec.panes(Duration.ofMinutes(1), 6)).add("k", 2))
          .isEqualTo(2);
    }
    try (RespClient client = redis.client()) {
      client.command("SELECT", "2");
      assertThat((Long) client.command("DBSIZE")).isPositive(); // database: 2 reached the engine
    }
  }

  @Test
  void open_wrongPassword_failsWithTheEnginesException(RedisServer redis) throws Exception {
    EngineConfig wrong = engine(redis, "not-the-password");

    assertThatThrownBy(wrong::open).isInstanceOf(RuntimeException.class);
  }
}
