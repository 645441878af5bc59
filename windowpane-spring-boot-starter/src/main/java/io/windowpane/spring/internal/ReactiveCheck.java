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
        RateLimitedInterceptor.Call call = interceptor.call(plan, method,
            invocation.getArguments(), request, p.orElse(null));
        if (call == null) {
          return Mono.just(Optional.<Outcome>empty()); // a condition, or on-null: skip
        }
        RequestView view = exchange == null ? null : ReactiveRateLimitFilter.view(
            ((ServerWebExchange) exchange).getRequest(), p.map(Principal::getName).orElse(null));
        return Mono.fromCompletionStage(() -> guard.acquireAsync(plan.target(), call.key(),
            view))
            .map(Optional::of);
      }).doOnNext(outcome -> {
        // on a denial too, so that an application's own exception handler keeps them
        if (exchange != null && outcome.isPresent()) {
          ServerWebExchange e = (ServerWebExchange) exchange;
          Outcome o = outcome.get();
          (o.letThrough() || plan.fallback() == null ? o.headers() : o.fallbackHeaders())
              .forEach((name, value) -> e.getResponse().getHeaders().set(name, value));
        }
      });
    });
    Object target = invocation.getThis();
    Object[] args = invocation.getArguments();
    if (Mono.class.isAssignableFrom(method.getReturnType())) {
      return decide.flatMap(o -> o.isEmpty() || o.get().letThrough() ? (Mono<?>) proceed(later)
          : Mono.from(denied(plan, target, args, o.get())));
    }
    return decide.flatMapMany(o -> Flux.from(o.isEmpty() || o.get().letThrough()
        ? (org.reactivestreams.Publisher<?>) proceed(later) : denied(plan, target, args, o.get())));
  }

  /** The fallback method's publisher when the plan has one, else the denial as an error. */
  private static org.reactivestreams.Publisher<?> denied(Plan plan, Object target,
      Object[] args, Outcome outcome) {
    if (plan.fallback() == null) {
      return Mono.error(outcome.exception());
    }
    return (org.reactivestreams.Publisher<?>) RateLimitedInterceptor.fallback(plan, target,
        args, outcome.exception());
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
