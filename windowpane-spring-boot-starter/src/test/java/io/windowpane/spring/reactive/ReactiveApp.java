package io.windowpane.spring.reactive;

import io.windowpane.spring.RateLimitExceededException;
import io.windowpane.spring.RateLimitExempt;
import io.windowpane.spring.RateLimited;
import java.security.Principal;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A WebFlux application using the starter, for the tests. */
@SpringBootApplication
public class ReactiveApp {

  /** Requests by X-Request-Id that the server has received and not yet finished. */
  public static final java.util.Map<String, String> IN_FLIGHT =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** How the server finished each request by X-Request-Id: the signal and the status. */
  public static final java.util.Map<String, String> FINISHED =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Stands in for an authentication filter: header X-User becomes the exchange's principal. */
  @Bean
  WebFilter testPrincipal() {
    return (exchange, chain) -> {
      String id = exchange.getRequest().getHeaders().getFirst("X-Request-Id");
      if (id != null) {
        IN_FLIGHT.put(id, Thread.currentThread().getName() + " " + System.currentTimeMillis());
        return chain.filter(exchange).doFinally(s -> {
          IN_FLIGHT.remove(id);
          FINISHED.put(id, s + " " + exchange.getResponse().getStatusCode() + " committed "
              + exchange.getResponse().isCommitted() + " at " + System.currentTimeMillis());
        });
      }
      String user = exchange.getRequest().getHeaders().getFirst("X-User");
      if (user == null) {
        return chain.filter(exchange);
      }
      Principal principal = () -> user;
      return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
    };
  }

  @RestController
  static class Api {
    @GetMapping("/hello")
    @RateLimited(limiter = "demo",
        key = "'client:' + #request.headers.getFirst('X-Client')")
    public Mono<String> hello() {
      return Mono.just("hello");
    }

    @GetMapping("/users/{id}")
    @RateLimited(limiter = "demo", key = "'user:' + #id + ':' + (#principal?.name ?: 'anonymous')")
    public Flux<String> user(@PathVariable String id) {
      return Flux.just("user ", id);
    }

    @GetMapping("/runtime/{id}")
    @RateLimited(limiter = "runtime", key = "#id")
    public Mono<String> runtime(@PathVariable String id) {
      return Mono.just("runtime " + id);
    }

    @GetMapping("/combined/{id}")
    @RateLimited(limiter = "per-second", key = "#id")
    @RateLimited(limiter = "per-minute", key = "#id")
    public Mono<String> combined(@PathVariable String id) {
      return Mono.just("combined " + id);
    }

    @GetMapping("/trial/{id}")
    @RateLimited(limiter = "trial", key = "#id")
    public Mono<String> trial(@PathVariable String id) {
      return Mono.just("trial " + id);
    }

    @GetMapping("/nokey")
    @RateLimited(limiter = "demo", key = "#request.headers.getFirst('X-Key')")
    public Mono<String> noKey() {
      return Mono.just("nokey");
    }

    @GetMapping("/whoami")
    @RateLimited(limiter = "per-minute", key = "'who:' + #principal.name")
    public Mono<String> whoami() {
      return Mono.just("whoami");
    }

    @GetMapping("/filtered/{id}")
    public Mono<String> filtered(@PathVariable String id) {
      return Mono.just("filtered " + id);
    }
  }

  /** A controller with its own handler for the denial: it copies no header. */
  @RestController
  static class OwnHandler {
    @GetMapping("/own/{id}")
    @RateLimited(limiter = "filtered", key = "'own:' + #id")
    public Mono<String> own(@PathVariable String id) {
      return Mono.just("own " + id);
    }

    @ExceptionHandler(RateLimitExceededException.class)
    ResponseEntity<String> slowDown(RateLimitExceededException denial) {
      return ResponseEntity.status(429).contentType(MediaType.TEXT_PLAIN).body("slow down");
    }
  }

  @RestController
  static class Conditions {
    @GetMapping("/conditional/{id}")
    @RateLimited(limiter = "filtered", key = "'cond:' + #id",
        skipCondition = "#request.headers.getFirst('X-Internal') != null", executeCondition = "#id != 'free'")
    public Mono<String> conditional(@PathVariable String id) {
      return Mono.just("conditional " + id);
    }

    @GetMapping("/fallback/{id}")
    @RateLimited(limiter = "filtered", key = "'fb:' + #id", fallbackMethod = "busy")
    public Mono<String> fallback(@PathVariable String id) {
      return Mono.just("fallback " + id);
    }

    public Mono<String> busy(String id, RateLimitExceededException denial) {
      return Mono.just("busy " + id + ", retry after " + denial.decision().retryAfterMillis() + " ms");
    }

    @GetMapping("/gated/{id}")
    public Mono<String> gated(@PathVariable String id) {
      return Mono.just("gated " + id);
    }
  }

  /** Every public method limited by the type's annotation, one opted out. */
  @RestController
  @RateLimited(limiter = "filtered", key = "'cls:' + #id")
  static class Limited {
    @GetMapping("/cls/{id}")
    public Mono<String> limited(@PathVariable String id) {
      return Mono.just("limited " + id);
    }

    @GetMapping("/cls-exempt/{id}")
    @RateLimitExempt
    public Mono<String> exempt(@PathVariable String id) {
      return Mono.just("exempt " + id);
    }
  }
}
