package io.windowpane.spring.internal;

import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Puts the exchange in the Reactor context, so that {@code @RateLimited} on a reactive method
 * can evaluate {@code #request} and {@code #principal}. Ordered last, so that it sees the
 * exchange as the filters before it left it (an authentication filter sets the principal by
 * mutating the exchange).
 */
public final class ExchangeContextFilter implements WebFilter, Ordered {

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    return chain.filter(exchange).contextWrite(ctx -> ctx.put(ServerWebExchange.class, exchange));
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}
