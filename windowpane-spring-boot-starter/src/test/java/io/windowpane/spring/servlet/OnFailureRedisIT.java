package io.windowpane.spring.servlet;

import static io.windowpane.spring.Http.header;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.spring.Http;
import io.windowpane.testkit.redis.RedisServer;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * With {@code windowpane.engine.on-failure: deny}, a Redis that is gone answers 429 marked
 * degraded, without state, and the health contributor reports the engine down.
 */
// closed after the class: its Redis is gone, and its clients must not reconnect to a later
// test's server that reuses the port
@DirtiesContext
@SpringBootTest(classes = ServletApp.class, webEnvironment = WebEnvironment.RANDOM_PORT)
@ActiveProfiles("demo")
class OnFailureRedisIT {

  static RedisServer redis;

  @DynamicPropertySource
  static void redisProperties(DynamicPropertyRegistry registry) {
    redis = RedisServer.start();
    registry.add("windowpane.engine.type", () -> "redis");
    registry.add("windowpane.engine.on-failure", () -> "deny");
    registry.add("windowpane.engine.redis.uri", () -> redis.uri());
    registry.add("windowpane.engine.redis.timeout", () -> "500ms");
    registry.add("windowpane.engine.redis.connect-timeout", () -> "10s");
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  @LocalServerPort
  int port;

  @Test
  void redisGone_onFailureDeny_answers429Degraded_andHealthDown() {
    Http http = new Http(port);
    assertThat(http.get("/hello", "X-Client", "f").statusCode()).isEqualTo(200);
    redis.kill();

    HttpResponse<String> denied = http.get("/hello", "X-Client", "f");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "Retry-After")).isEqualTo("1");
    assertThat(header(denied, "RateLimit-Policy")).isEqualTo("\"demo\";q=2;w=10");
    assertThat(header(denied, "RateLimit")).isNull();
    assertThat(denied.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many"
        + " Requests\",\"status\":429,\"detail\":\"the backend of limiter demo failed and"
        + " onFailure is deny; retry after 1000 ms\",\"instance\":\"/hello\",\"limiter\":"
        + "\"demo\",\"deniedBy\":null,\"retryAfterMillis\":1000,\"degraded\":true}");

    HttpResponse<String> metric = http.get("/actuator/metrics/windowpane.decisions"
        + "?tag=limiter:demo&tag=outcome:denied&tag=degraded:true");
    assertThat(metric.body()).contains("{\"statistic\":\"COUNT\",\"value\":1.0}");
    HttpResponse<String> health = http.get("/actuator/health/windowpane");
    assertThat(health.statusCode()).isEqualTo(503);
    assertThat(health.body()).contains("\"engine\":\"redis\"").endsWith("\"status\":\"DOWN\"}");
  }
}
