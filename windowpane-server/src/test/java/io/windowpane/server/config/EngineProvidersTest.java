package io.windowpane.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.config.EngineConfig;
import io.windowpane.config.EngineReader;
import io.windowpane.redis.RedisEngine;
import io.windowpane.spi.EngineProvider;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * The service's jar carries both engine modules: windowpane-config finds their providers, and
 * the configuration's own check of Redis URIs agrees with the Redis engine's parser.
 */
class EngineProvidersTest {

  @Test
  void bothProviders_areOnTheServicesClassPath() {
    assertThat(ServiceLoader.load(EngineProvider.class).stream()
        .map(p -> p.get().kind())).containsExactlyInAnyOrder("redis", "etcd");
  }

  @Test
  void open_unreachableRedis_letsTheEnginesExceptionThrough() throws Exception {
    EngineConfig e = ServerConfig.parse("""
        engine:
          type: redis
          redis:
            uri: redis://127.0.0.1:1
            connectTimeout: 200ms
            timeout: 200ms
        """, "x").engine();

    assertThatThrownBy(e::open).isInstanceOf(RuntimeException.class)
        .isNotInstanceOf(IllegalStateException.class); // not "module missing": Redis is down
  }

  /** Taken by Lettuce, which ignores a database parameter that is not a number: refused here. */
  private static final List<String> STRICTER = List.of("redis://h:6379?db=x");

  @Test
  void redisUriProblem_agreesWithTheEnginesParser_orIsStricter() {
    List<String> uris = List.of("redis://localhost", "redis://127.0.0.1:6379",
        "rediss://u:p@cache.example:6380/3", "redis://:pw@h:6379/0?timeout=5s",
        "redis://h:6379?db=2", "redis://h:6379?database=4", "redis://redis_host:6379",
        "redis://[::1]:6379", "localhost:6379", "http://h:6379", "redis://", "redis://:pw@",
        "redis://h:6379/x", "redis://h:6379?db=x", "redis://h:70000", "redis://u:p w@h:6379",
        "redis://h:6379/99999999999");
    for (String uri : uris) {
      boolean engineTakes;
      try {
        RedisEngine.builder().uri(uri);
        engineTakes = true;
      } catch (IllegalArgumentException e) {
        engineTakes = false;
      }
      assertThat(EngineReader.redisUriProblem(uri) == null).as(uri)
          .isEqualTo(engineTakes && !STRICTER.contains(uri));
    }
  }
}
