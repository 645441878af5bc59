package io.windowpane.spring.reactive;

import io.windowpane.spring.RedisScenarios;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter on WebFlux and the Redis engine, whose connection comes from Spring Data Redis'
 * own properties (spring.data.redis.*): windowpane.engine.redis is not set at all.
 */
@SpringBootTest(classes = ReactiveApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.main.web-application-type=reactive")
@ActiveProfiles("demo")
class ReactiveRedisIT extends RedisScenarios {

  @DynamicPropertySource
  static void redisProperties(DynamicPropertyRegistry registry) {
    registry.add("windowpane.engine.type", () -> "redis");
    registry.add("spring.data.redis.host", () -> redis().host());
    registry.add("spring.data.redis.port", () -> redis().port());
    // generous: the first connection of a JVM on a loaded 2-core machine can take seconds
    registry.add("windowpane.engine.redis.timeout", () -> "10s");
    registry.add("windowpane.engine.redis.connect-timeout", () -> "10s");
  }
}
