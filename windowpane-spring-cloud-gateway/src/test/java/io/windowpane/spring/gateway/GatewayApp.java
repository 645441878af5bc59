package io.windowpane.spring.gateway;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/** A gateway whose rate limiter is windowpane's, for the test. */
@SpringBootApplication
public class GatewayApp {

  /** The client's key: header X-Client. */
  @Bean
  KeyResolver clientKey() {
    return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Client"));
  }
}
