package io.windowpane.spring.servlet;

import io.windowpane.spring.RateLimitExceededException;
import io.windowpane.spring.RateLimitExempt;
import io.windowpane.spring.RateLimited;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.security.Principal;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** A servlet application using the starter, for the tests. */
@SpringBootApplication
public class ServletApp {

  /** Stands in for an authentication filter: header X-User becomes the request's principal. */
  @Bean
  Filter testPrincipal() {
    return (request, response, chain) -> {
      String user = ((HttpServletRequest) request).getHeader("X-User");
      if (user == null) {
        chain.doFilter(request, response);
        return;
      }
      chain.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request) {
        @Override
        public Principal getUserPrincipal() {
          return () -> user;
        }
      }, response);
    };
  }

  @RestController
  static class Api {
    private final Work work;

    Api(Work work) {
      this.work = work;
    }

    @GetMapping("/hello")
    @RateLimited(limiter = "demo", key = "'client:' + #request.getHeader('X-Client')")
    public String hello() {
      return "hello";
    }

    @GetMapping("/users/{id}")
    @RateLimited(limiter = "demo", key = "'user:' + #id + ':' + (#principal?.name ?: 'anonymous')")
    public String user(@PathVariable String id) {
      return "user " + id;
    }

    @GetMapping("/runtime/{id}")
    @RateLimited(limiter = "runtime", key = "#id")
    public String runtime(@PathVariable String id) {
      return "runtime " + id;
    }

    @GetMapping("/combined/{id}")
    @RateLimited(limiter = "per-second", key = "#id")
    @RateLimited(limiter = "per-minute", key = "#id")
    public String combined(@PathVariable String id) {
      return "combined " + id;
    }

    @GetMapping("/trial/{id}")
    @RateLimited(limiter = "trial", key = "#id")
    public String trial(@PathVariable String id) {
      return "trial " + id;
    }

    @GetMapping("/filtered/{id}")
    public String filtered(@PathVariable String id) {
      return "filtered " + id;
    }

    @GetMapping("/nokey")
    @RateLimited(limiter = "demo", key = "#request.getHeader('X-Key')")
    public String noKey() {
      return "nokey";
    }

    @GetMapping("/whoami")
    @RateLimited(limiter = "per-minute", key = "'who:' + #principal.name")
    public String whoami() {
      return "whoami";
    }

    @GetMapping("/work/{id}")
    public String work(@PathVariable String id) {
      return work.run(id);
    }
  }

  /** A controller with its own handler for the denial: it copies no header. */
  @RestController
  static class OwnHandler {
    @GetMapping("/own/{id}")
    @RateLimited(limiter = "filtered", key = "'own:' + #id")
    public String own(@PathVariable String id) {
      return "own " + id;
    }

    @ExceptionHandler(RateLimitExceededException.class)
    ResponseEntity<String> slowDown(RateLimitExceededException denial) {
      return ResponseEntity.status(429).contentType(MediaType.TEXT_PLAIN).body("slow down");
    }
  }

  @Service
  public static class Work {
    @RateLimited(limiter = "demo", key = "'work:' + #id", permits = 2)
    public String run(String id) {
      return "worked " + id;
    }
  }

  @RestController
  static class Conditions {
    @GetMapping("/conditional/{id}")
    @RateLimited(limiter = "filtered", key = "'cond:' + #id",
        skipCondition = "#request.getHeader('X-Internal') != null", executeCondition = "#id != 'free'")
    public String conditional(@PathVariable String id) {
      return "conditional " + id;
    }

    @GetMapping("/fallback/{id}")
    @RateLimited(limiter = "filtered", key = "'fb:' + #id", fallbackMethod = "busy")
    public String fallback(@PathVariable String id) {
      return "fallback " + id;
    }

    public String busy(String id, RateLimitExceededException denial) {
      return "busy " + id + ", retry after " + denial.decision().retryAfterMillis() + " ms";
    }

    @GetMapping("/gated/{id}")
    public String gated(@PathVariable String id) {
      return "gated " + id;
    }
  }

  /** Every public method limited by the type's annotation, one opted out. */
  @RestController
  @RateLimited(limiter = "filtered", key = "'cls:' + #id")
  static class Limited {
    @GetMapping("/cls/{id}")
    public String limited(@PathVariable String id) {
      return "limited " + id;
    }

    @GetMapping("/cls-exempt/{id}")
    @RateLimitExempt
    public String exempt(@PathVariable String id) {
      return "exempt " + id;
    }
  }
}
