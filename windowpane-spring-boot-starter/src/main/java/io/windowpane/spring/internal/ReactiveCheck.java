package io.windowpane.spring.internal;

import io.windowpane.spring.internal.RateLimitGuard.Outcome;
import io.windowpane.spring.internal.RateLimitedInterceptor.Plan;
import java.lang.reflect.Method;
import java.security.Principal;
import java.util.Optional;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.util.ClassUtils;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link io.windowpane.spring.RateLimited} on a method returning {@code Mono} or {@code Flux}:
 * the decision is taken when the result is subscribed, without blocking, and the method itself
 * is only called once it is allowed.
 */
final class ReactiveCheck {

  private static final boolean WEBFLUX = ClassUtils.isPresent(
      "org.springframework.web.server.ServerWebExchange", ReactiveCheck.class.getClassLoader());

  private ReactiveCheck() {}

  static Object check(Method method, Plan plan, RateLimitGuard guard,
      ProxyMethodInvocation invocation, RateLimitedInterceptor interceptor) {
    ProxyMethodInvocation later = (ProxyMethodInvocation) invocation.invocableClone();
    Mono<Optional<Outcome>> decide = Mono.deferContextual(ctx -> {
      Object exchange = WEBFLUX ? ctx.getOrDefault(ServerWebExchange.class, null) : null;
      Mono<Optional<Principal>> principal = exchange == null ? Mono.just(Optional.empty())
          : ((ServerWebExchange) exchange).getPrincipal().map(Optional::of)
              .defaultIfEmpty(Optional.empty());
      return principal.flatMap(p -> {
        Object request = exchange == null ? null : ((ServerWebExchange) exchange).getRequest();
        String key = interceptor.key(plan, method, invocation.getArguments(), request,
            p.orElse(null));
        if (key == null) {
          return Mono.just(Optional.<Outcome>empty()); // windowpane.keys.on-null: skip
        }
        return Mono.fromCompletionStage(() -> guard.acquireAsync(plan.target(), key))
            .map(Optional::of);
      }).doOnNext(outcome -> {
        // on a denial too, so that an application's own exception handler keeps them
        if (exchange != null && outcome.isPresent()) {
          ServerWebExchange e = (ServerWebExchange) exchange;
          outcome.get().headers().forEach((name, value) -> e.getResponse().getHeaders()
              .set(name, value));
        }
      });
    });
    Mono<Optional<Outcome>> allowed = decide.flatMap(outcome -> outcome.isEmpty()
        || outcome.get().letThrough() ? Mono.just(outcome)
        : Mono.error(outcome.get().exception()));
    if (Mono.class.isAssignableFrom(method.getReturnType())) {
      return allowed.flatMap(o -> (Mono<?>) proceed(later));
    }
    return allowed.flatMapMany(o -> Flux.from((org.reactivestreams.Publisher<?>) proceed(later)));
  }

  private static Object proceed(ProxyMethodInvocation invocation) {
    try {
      return invocation.proceed();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
