package io.windowpane.spring.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.spring.Http;
import io.windowpane.testkit.redis.RedisServer;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * An application on the chain [redis, local] that starts while nothing listens on Redis's port:
 * the context starts, {@code @RateLimited} answers from the local engine, and Actuator's health
 * says {@code DEGRADED} (200) with the Redis member down by the signal {@code connect}; once
 * redis-server starts there, the chain goes back to Redis by itself.
 */
// closed after the class: its Redis is gone, and its clients must not reconnect to a later
// test's server that reuses the port
@DirtiesContext
@SpringBootTest(classes = ServletApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "management.endpoint.health.show-details=always")
@ActiveProfiles("demo")
class ChainStartDuringOutageIT {

  static int redisPort = RedisServer.freePort();

  @DynamicPropertySource
  static void chainProperties(DynamicPropertyRegistry registry) {
    registry.add("windowpane.engine.chain", () -> "redis,local");
    registry.add("windowpane.engine.redis.uri", () -> "redis://127.0.0.1:" + redisPort);
    registry.add("windowpane.engine.redis.connect-timeout", () -> "1s");
    registry.add("windowpane.engine.failover.probe-interval", () -> "50ms");
    registry.add("windowpane.engine.failover.probe-timeout", () -> "1s");
    registry.add("windowpane.engine.failover.call-timeout", () -> "1s");
    registry.add("windowpane.engine.failover.latency-threshold", () -> "1s");
  }

  @LocalServerPort
  int port;

  @Test
  void startedWhileRedisIsDown_answersFromLocal_healthDegraded_thenBackOnRedis()
      throws Exception {
    Http http = new Http(port);
    assertThat(http.get("/hello", "X-Client", "s").statusCode()).isEqualTo(200);
    HttpResponse<String> health = http.get("/actuator/health/windowpane");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"status\":\"DEGRADED\"", "\"active\":\"local\"",
        "\"health\":\"down\"", "\"connect\"");
    // the chain's meters, with the service's names: redis down (2), local takes the writes
    assertThat(http.meter("windowpane.failover.health", "engine:redis")).isEqualTo(2.0);
    assertThat(http.meter("windowpane.failover.health", "engine:local")).isEqualTo(0.0);
    assertThat(http.meter("windowpane.failover.active", "engine:local")).isEqualTo(1.0);
    assertThat(http.meter("windowpane.failover.active", "engine:redis")).isEqualTo(0.0);
    assertThat(http.meter("windowpane.failover.recoveries", null)).isEqualTo(0.0);
    assertThat(http.meter("windowpane.failover.lost.events", null)).isEqualTo(0.0);

    try (RedisServer redis = RedisServer.startOn(redisPort)) {
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (!http.get("/actuator/health/windowpane").body().contains("\"active\":\"redis\"")
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      HttpResponse<String> up = http.get("/actuator/health/windowpane");
      assertThat(up.statusCode()).isEqualTo(200);
      assertThat(up.body()).contains("\"status\":\"UP\"", "\"active\":\"redis\"");
      assertThat(http.meter("windowpane.failover.health", "engine:redis")).isEqualTo(0.0);
      assertThat(http.meter("windowpane.failover.active", "engine:redis")).isEqualTo(1.0);
      assertThat(http.meter("windowpane.failover.recoveries", null)).isEqualTo(1.0);
      // the one event local took while redis was down was replayed (or, had its 10 s window
      // passed, dropped) at recovery
      assertThat(http.meter("windowpane.failover.replayed.events", null)
          + http.meter("windowpane.failover.dropped.events", null)).isEqualTo(1.0);
    }
  }
}
