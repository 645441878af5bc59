package io.windowpane.spring.internal;

import io.windowpane.spring.RateLimitDenialBody;
import io.windowpane.spring.RateLimitExceededException;
import io.windowpane.spring.RateLimitKeyException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The 429 reply to {@link RateLimitExceededException} (body from the
 * {@link RateLimitDenialBody}), and the 400 reply to {@link RateLimitKeyException}, for both web
 * stacks' advice. An application's own handler ordered before it takes precedence; the
 * rate-limit headers are already on the response by then, so it keeps them without copying.
 */
public final class RateLimitExceptionHandler {

  private RateLimitExceptionHandler() {}

  static ResponseEntity<String> reply(RateLimitExceededException denial, String instance,
      RateLimitDenialBody bodies) {
    HttpHeaders headers = new HttpHeaders();
    denial.headers().forEach(headers::set);
    RateLimitDenialBody.Body body = bodies.body(denial, instance);
    headers.setContentType(MediaType.parseMediaType(body.contentType()));
    return ResponseEntity.status(429).headers(headers).body(body.content());
  }

  static ResponseEntity<String> missingKey(RateLimitKeyException missing, String instance) {
    return ResponseEntity.status(400)
        .contentType(MediaType.parseMediaType(ProblemJson.CONTENT_TYPE))
        .body(ProblemJson.missingKey(missing, instance));
  }

  /** For Spring MVC controllers. */
  @RestControllerAdvice
  @Order(Ordered.LOWEST_PRECEDENCE)
  public static class Servlet {
    private final RateLimitDenialBody bodies;

    public Servlet(RateLimitDenialBody bodies) {
      this.bodies = bodies;
    }

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<String> rateLimited(RateLimitExceededException denial,
        jakarta.servlet.http.HttpServletRequest request) {
      return reply(denial, request.getRequestURI(), bodies);
    }

    @ExceptionHandler(RateLimitKeyException.class)
    public ResponseEntity<String> missingKey(RateLimitKeyException missing,
        jakarta.servlet.http.HttpServletRequest request) {
      return RateLimitExceptionHandler.missingKey(missing, request.getRequestURI());
    }
  }

  /** The same for WebFlux controllers. */
  @RestControllerAdvice
  @Order(Ordered.LOWEST_PRECEDENCE)
  public static class Reactive {
    private final RateLimitDenialBody bodies;

    public Reactive(RateLimitDenialBody bodies) {
      this.bodies = bodies;
    }

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<String> rateLimited(RateLimitExceededException denial,
        org.springframework.web.server.ServerWebExchange exchange) {
      return reply(denial, exchange.getRequest().getPath().value(), bodies);
    }

    @ExceptionHandler(RateLimitKeyException.class)
    public ResponseEntity<String> missingKey(RateLimitKeyException missing,
        org.springframework.web.server.ServerWebExchange exchange) {
      return RateLimitExceptionHandler.missingKey(missing,
          exchange.getRequest().getPath().value());
    }
  }
}
