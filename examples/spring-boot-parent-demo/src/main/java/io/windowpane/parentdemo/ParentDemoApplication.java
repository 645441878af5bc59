package io.windowpane.parentdemo;

import io.windowpane.spring.RateLimited;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * windowpane on Redis in an application built on Spring Boot's parent POM, with Boot's own
 * dependency versions (Lettuce included). Start a redis-server on 127.0.0.1:6379 (or pass
 * {@code --windowpane.engine.redis.uri=redis://host:port}), run it, then
 * {@code curl http://127.0.0.1:8080/hello} three times: the third gets 429.
 */
@SpringBootApplication
public class ParentDemoApplication {

  public static void main(String[] args) {
    SpringApplication.run(ParentDemoApplication.class, args);
  }

  @RestController
  static class Api {

    /** 2 per 10 s per client address, counted in Redis; the third gets 429 problem+json. */
    @GetMapping("/hello")
    @RateLimited(limiter = "api", key = "#request.remoteAddr")
    public String hello(HttpServletRequest request) {
      return "hello " + request.getRemoteAddr() + "\n";
    }
  }
}
