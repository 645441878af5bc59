package io.windowpane.parentdemo;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.windowpane.testkit.redis.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The application on Spring Boot's managed dependencies and a real redis-server started by the
 * testkit: the Redis engine starts on Boot's Lettuce (6.8.x for Boot 4.0.x, where windowpane is
 * built against 7.x) and answers the third call with 429.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class ParentDemoApplicationTest {

  private static RedisServer redis;

  @DynamicPropertySource
  static void redisProperties(DynamicPropertyRegistry registry) {
    if (redis == null) {
      redis = RedisServer.start();
    }
    registry.add("windowpane.engine.redis.uri", redis::uri);
    // generous: the first connection of a JVM on a loaded 2-core machine can take seconds
    registry.add("windowpane.engine.redis.timeout", () -> "10s");
    registry.add("windowpane.engine.redis.connect-timeout", () -> "10s");
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

  private HttpResponse<String> get(String path) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .GET().build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void lettuce_isTheVersionSpringBootManages() {
    String managed = System.getProperty("boot.lettuce.version");
    assertThat(managed).as("boot.lettuce.version, set by the pom from Boot's lettuce.version")
        .isNotBlank();
    assertThat(RedisClient.class.getPackage().getImplementationVersion())
        .startsWith(managed + "/"); // e.g. 6.8.2.RELEASE/34f8700
  }

  @Test
  void hello_onRedis_twoAllowedThenTooManyRequests() throws Exception {
    assertThat(get("/hello").statusCode()).isEqualTo(200);
    HttpResponse<String> second = get("/hello");
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(second.headers().firstValue("RateLimit")).get().asString()
        .startsWith("\"per-10s\";r=0;t=");
    HttpResponse<String> third = get("/hello");
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(third.body()).startsWith("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\","
        + "\"status\":429,\"detail\":\"limit per-10s of limiter api: 2 per 10s; retry after ")
        .endsWith(",\"degraded\":false}");

    String scrape = get("/actuator/prometheus").body();
    assertThat(scrape).containsPattern(
        "windowpane_decisions_total\\{[^}]*limiter=\"api\",outcome=\"denied\"[^}]*} 1.0");
  }

  @Test
  void health_reportsTheRedisEngineUp() throws Exception { // takes no permit
    HttpResponse<String> health = get("/actuator/health/windowpane");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).startsWith("{\"details\":{\"engine\":\"redis\",")
        .endsWith("\"status\":\"UP\"}");
  }
}
