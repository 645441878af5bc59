package io.windowpane.spring.servlet;

import io.windowpane.spring.RedisScenarios;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The starter on Spring MVC and the Redis engine, configured by windowpane.engine.redis.uri. */
@SpringBootTest(classes = ServletApp.class, webEnvironment = WebEnvironment.RANDOM_PORT)
@ActiveProfiles("demo")
class ServletRedisIT extends RedisScenarios {

  @DynamicPropertySource
  static void redisProperties(DynamicPropertyRegistry registry) {
    registry.add("windowpane.engine.type", () -> "redis");
    registry.add("windowpane.engine.redis.uri", () -> redis().uri());
    // generous: the first connection of a JVM on a loaded 2-core machine can take seconds
    registry.add("windowpane.engine.redis.timeout", () -> "10s");
    registry.add("windowpane.engine.redis.connect-timeout", () -> "10s");
  }
}
