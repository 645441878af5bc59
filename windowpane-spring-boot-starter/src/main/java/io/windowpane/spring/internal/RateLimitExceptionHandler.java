package io.windowpane.spring.internal;

import io.windowpane.spring.RateLimitExceededException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** The 429 reply to {@link RateLimitExceededException}, for both web stacks' advice. */
public final class RateLimitExceptionHandler {

  private RateLimitExceptionHandler() {}

  static ResponseEntity<String> reply(RateLimitExceededException denial, String instance) {
    HttpHeaders headers = new HttpHeaders();
    denial.headers().forEach(headers::set);
    headers.setContentType(MediaType.parseMediaType(ProblemJson.CONTENT_TYPE));
    return ResponseEntity.status(429).headers(headers).body(ProblemJson.body(denial, instance));
  }

  /**
   * Answers the exception from any Spring MVC controller with 429 problem+json and the
   * service's headers; an application's own handler ordered before it takes precedence.
   */
  @RestControllerAdvice
  @Order(Ordered.LOWEST_PRECEDENCE)
  public static class Servlet {
    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<String> rateLimited(RateLimitExceededException denial,
        jakarta.servlet.http.HttpServletRequest request) {
      return reply(denial, request.getRequestURI());
    }
  }

  /** The same for WebFlux controllers. */
  @RestControllerAdvice
  @Order(Ordered.LOWEST_PRECEDENCE)
  public static class Reactive {
    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<String> rateLimited(RateLimitExceededException denial,
        org.springframework.web.server.ServerWebExchange exchange) {
      return reply(denial, exchange.getRequest().getPath().value());
    }
  }
}
