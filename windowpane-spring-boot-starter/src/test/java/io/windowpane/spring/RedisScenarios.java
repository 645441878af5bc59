package io.windowpane.spring;

import static io.windowpane.spring.Http.header;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.testkit.redis.RedisServer;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/**
 * What both web stacks must do on a real redis-server started by the testkit. Redis' clock
 * decides, so a denial's retry time is read from the body and the Retry-After header must be
 * exactly that, rounded up to seconds; everything else is exact. The context is closed after
 * the class, with the server it was given: its clients must not reconnect to a later test's
 * server that happens to reuse the port.
 */
@DirtiesContext
public abstract class RedisScenarios {

  private static final Pattern RETRY = Pattern.compile("\"retryAfterMillis\":([0-9]+),");

  protected static RedisServer redis;

  /** Starts the server once per test class (called from a @DynamicPropertySource). */
  protected static synchronized RedisServer redis() {
    if (redis == null) {
      redis = RedisServer.start();
    }
    return redis;
  }

  @AfterAll
  static void stopRedis() {
    if (redis != null) {
      redis.close();
      redis = null;
    }
  }

  @LocalServerPort
  int port;

  @org.springframework.beans.factory.annotation.Autowired
  org.springframework.context.ConfigurableApplicationContext context;

  @Test
  void propertyChangedAtRunTime_onRedis_changesTheNextDecision_andTheCountsStay() {
    RuntimeLimits.propertyChangedAtRunTime(new Http(port), context, "r");
  }

  @Test
  void rateLimited_onRedis_allowsTwoThenAnswers429Problem() {
    Http http = new Http(port);
    HttpResponse<String> first = http.get("/hello", "X-Client", "r");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(header(first, "RateLimit-Policy")).isEqualTo("\"demo\";q=2;w=10");
    assertThat(header(first, "RateLimit")).isEqualTo("\"demo\";r=1;t=10");
    assertThat(http.get("/hello", "X-Client", "r").statusCode()).isEqualTo(200);

    HttpResponse<String> denied = http.get("/hello", "X-Client", "r");
    assertThat(denied.statusCode()).isEqualTo(429);
    Matcher m = RETRY.matcher(denied.body());
    assertThat(m.find()).isTrue();
    long retry = Long.parseLong(m.group(1));
    assertThat(retry).isBetween(1L, 10_000L);
    assertThat(denied.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many"
        + " Requests\",\"status\":429,\"detail\":\"limit demo of limiter demo: 2 per 10s; retry"
        + " after " + retry + " ms\",\"instance\":\"/hello\",\"limiter\":\"demo\",\"deniedBy\":"
        + "{\"name\":\"demo\",\"permits\":2,\"windowMillis\":10000},\"retryAfterMillis\":"
        + retry + ",\"degraded\":false}");
    assertThat(header(denied, "Content-Type")).isEqualTo("application/problem+json");
    assertThat(header(denied, "RateLimit")).isEqualTo("\"demo\";r=0;t=10");
    assertThat(header(denied, "Retry-After")).isEqualTo(Long.toString((retry + 999) / 1000));
    assertThat(http.get("/hello", "X-Client", "s").statusCode()).isEqualTo(200);
  }

  @Test
  void twoAnnotations_onRedis_oneQuotaOfBothLimiters() {
    // Redis' clock runs on: on a slow machine 2/1s may have room again, 3/1m cannot (4 calls)
    Http http = new Http(port);
    int allowed = 0;
    HttpResponse<String> reply = http.get("/combined/r");
    while (reply.statusCode() == 200 && allowed < 4) {
      allowed++;
      reply = http.get("/combined/r");
    }
    assertThat(allowed).isBetween(2, 3);
    assertThat(reply.statusCode()).isEqualTo(429);
    assertThat(reply.body()).containsAnyOf(
        "\"limiter\":\"per-second:per-minute\",\"deniedBy\":{\"name\":\"2/1s\",\"permits\":2,"
            + "\"windowMillis\":1000}",
        "\"limiter\":\"per-second:per-minute\",\"deniedBy\":{\"name\":\"3/1m\",\"permits\":3,"
            + "\"windowMillis\":60000}");
    assertThat(header(reply, "RateLimit-Policy")).isEqualTo("\"2/1s\";q=2;w=1, \"3/1m\";q=3;w=60");
  }

  @Test
  void shadowAndFilter_onRedis() {
    Http http = new Http(port);
    assertThat(http.get("/trial/r").statusCode()).isEqualTo(200);
    assertThat(http.get("/trial/r").statusCode()).isEqualTo(200);
    assertThat(http.get("/filtered/1", "X-Api-Key", "r").statusCode()).isEqualTo(200);
    HttpResponse<String> denied = http.get("/filtered/1", "X-Api-Key", "r");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.body()).contains("\"limiter\":\"filtered\"");
  }

  @Test
  void health_reportsTheRedisEngineUp() {
    HttpResponse<String> health = new Http(port).get("/actuator/health/windowpane");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).startsWith("{\"details\":{\"engine\":\"redis\",")
        .contains("\"memory\":{\"level\":\"normal\",")
        .endsWith("\"status\":\"UP\"}");
  }
}
