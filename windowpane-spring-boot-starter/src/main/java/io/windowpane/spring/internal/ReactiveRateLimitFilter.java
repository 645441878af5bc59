package io.windowpane.spring.internal;

import io.windowpane.spring.RateLimitDenialBody;
import io.windowpane.spring.RateLimitExceededException;
import io.windowpane.spring.RateLimitKeyException;
import io.windowpane.spring.internal.PathRules.Compiled;
import io.windowpane.spring.internal.RateLimitGuard.Outcome;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** {@code windowpane.filter.rules} on WebFlux; decides without blocking. */
public final class ReactiveRateLimitFilter implements WebFilter, Ordered {

  private final PathRules rules;
  private final RateLimitGuard guard;
  private final int order;
  private final RateLimitDenialBody bodies;

  public ReactiveRateLimitFilter(PathRules rules, RateLimitGuard guard, int order,
      RateLimitDenialBody bodies) {
    this.rules = rules;
    this.guard = guard;
    this.order = order;
    this.bodies = bodies;
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    ServerHttpRequest request = exchange.getRequest();
    String path = request.getPath().pathWithinApplication().value();
    List<Compiled> matching = rules.matching(request.getMethod().name(), path);
    if (matching.isEmpty()) {
      return chain.filter(exchange);
    }
    return exchange.getPrincipal().map(p -> p.getName()).defaultIfEmpty("")
        .flatMap(principal -> apply(exchange, chain, matching, 0,
            view(request, principal.isEmpty() ? null : principal)));
  }

  /** The view of a WebFlux request; {@code principal} its name or null. */
  static RequestView view(ServerHttpRequest request, String principal) {
    InetSocketAddress remote = request.getRemoteAddress();
    return new RequestView(
        remote == null ? null : remote.getAddress() == null ? remote.getHostString()
            : remote.getAddress().getHostAddress(),
        request.getMethod().name(), request.getPath().pathWithinApplication().value(),
        principal, name -> request.getHeaders().getFirst(name));
  }

  private Mono<Void> apply(ServerWebExchange exchange, WebFilterChain chain,
      List<Compiled> matching, int i, RequestView view) {
    if (i == matching.size()) {
      return chain.filter(exchange);
    }
    Compiled rule = matching.get(i);
    if (!PathRules.applies(rule, view)) {
      return apply(exchange, chain, matching, i + 1, view);
    }
    String key;
    try {
      key = PathRules.key(rule, view, guard);
    } catch (RateLimitKeyException missing) {
      String path = exchange.getRequest().getPath().value();
      return write(exchange, HttpStatus.BAD_REQUEST, ProblemJson.CONTENT_TYPE,
          ProblemJson.missingKey(missing, path));
    }
    if (key == null) {
      return apply(exchange, chain, matching, i + 1, view); // windowpane.keys.on-null: skip
    }
    return Mono.fromCompletionStage(() -> guard.acquireAsync(rule.target(), key, view))
        .flatMap((Outcome outcome) -> {
          if (!outcome.letThrough()) {
            RateLimitExceededException denial = outcome.exception();
            denial.headers().forEach((n, v) -> exchange.getResponse().getHeaders().set(n, v));
            RateLimitDenialBody.Body body = bodies.body(denial,
                exchange.getRequest().getPath().value());
            return write(exchange, HttpStatus.TOO_MANY_REQUESTS, body.contentType(),
                body.content());
          }
          outcome.headers().forEach((n, v) -> exchange.getResponse().getHeaders().set(n, v));
          return apply(exchange, chain, matching, i + 1, view);
        });
  }

  private static Mono<Void> write(ServerWebExchange exchange, HttpStatus status,
      String contentType, String content) {
    ServerHttpResponse response = exchange.getResponse();
    response.setStatusCode(status);
    response.getHeaders().set("Content-Type", contentType);
    byte[] body = content.getBytes(StandardCharsets.UTF_8);
    response.getHeaders().setContentLength(body.length);
    DataBuffer buffer = response.bufferFactory().wrap(body);
    return response.writeWith(Flux.just(buffer));
  }

  @Override
  public int getOrder() {
    return order;
  }
}
