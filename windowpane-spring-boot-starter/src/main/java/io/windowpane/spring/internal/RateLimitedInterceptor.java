package io.windowpane.spring.internal;

import io.windowpane.spring.RateLimited;
import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.internal.RateLimitGuard.Outcome;
import io.windowpane.spring.internal.RateLimitGuard.Target;
import java.lang.reflect.Method;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelEvaluationException;
import org.springframework.expression.spel.SpelMessage;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

/*
 * Design note: a plain AOP Alliance interceptor applied by RateLimitedPostProcessor (like Spring's
 * own @Async and @Validated support), so the starter needs no AspectJ. Each method's plan (the
 * target quota and the parsed key expression) is built once, on first sight, and cached. A method
 * returning a Publisher is checked when subscribed, with the async engine call, and the request
 * is taken from the Reactor context (ExchangeContextFilter puts the exchange there); any other
 * method is checked on the calling thread, the request taken from Spring MVC's thread-bound
 * request attributes.
 */

/** Applies {@link RateLimited} to a method call. */
public final class RateLimitedInterceptor implements MethodInterceptor {

  private static final boolean REACTOR = ClassUtils.isPresent(
      "reactor.core.publisher.Mono", RateLimitedInterceptor.class.getClassLoader());
  private static final boolean SERVLET = ClassUtils.isPresent(
      "jakarta.servlet.http.HttpServletRequest", RateLimitedInterceptor.class.getClassLoader())
      && ClassUtils.isPresent("org.springframework.web.context.request.RequestContextHolder",
      RateLimitedInterceptor.class.getClassLoader());

  private static final SpelExpressionParser PARSER = new SpelExpressionParser();
  private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

  /** A method's quota and key. */
  record Plan(Target target, Expression key, String fixedKey) {}

  private final Supplier<WindowpaneCatalog> catalog;
  private final Supplier<RateLimitGuard> guard;
  private final Map<Method, Plan> plans = new ConcurrentHashMap<>();

  public RateLimitedInterceptor(Supplier<WindowpaneCatalog> catalog,
      Supplier<RateLimitGuard> guard) {
    this.catalog = catalog;
    this.guard = guard;
  }

  /** The annotations on {@code method}, empty when none. */
  static Set<RateLimited> annotations(Method method) {
    return AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class);
  }

  /**
   * Checks the annotations of {@code method} against the configuration now (start-up), so
   * that a wrong limiter name or permits fails there rather than on the first call.
   *
   * @throws IllegalStateException naming the method and the problem
   */
  void validate(Method method) {
    plan(method);
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Object target = invocation.getThis();
    Method method = target == null ? invocation.getMethod()
        : AopUtils.getMostSpecificMethod(invocation.getMethod(), AopUtils.getTargetClass(target));
    Plan plan = plan(method);
    if (plan == null) {
      return invocation.proceed();
    }
    if (REACTOR && org.reactivestreams.Publisher.class.isAssignableFrom(method.getReturnType())
        && invocation instanceof ProxyMethodInvocation proxy) {
      return ReactiveCheck.check(method, plan, guard.get(), proxy, this);
    }
    HttpBits bits = SERVLET ? ServletBits.current() : HttpBits.NONE;
    String key = key(plan, method, invocation.getArguments(), bits.request(), bits.principal());
    if (key == null) {
      return invocation.proceed(); // windowpane.keys.on-null: skip
    }
    Outcome outcome = guard.get().acquire(plan.target(), key);
    bits.headers(outcome);
    if (!outcome.letThrough()) {
      throw outcome.exception();
    }
    return invocation.proceed();
  }

  /**
   * The key of one call; a key expression that gives nothing follows
   * {@code windowpane.keys.on-null}: the shared key, null (skip), or
   * {@link io.windowpane.spring.RateLimitKeyException} (reject).
   */
  String key(Plan plan, Method method, Object[] args, Object request, Principal principal) {
    if (plan.key() == null) {
      return plan.fixedKey();
    }
    MethodBasedEvaluationContext context =
        new MethodBasedEvaluationContext(args, method, args, NAMES);
    context.setVariable("request", request);
    context.setVariable("principal", principal);
    return guard.get().keyOrPolicy(plan.target(), evaluate(plan.key(), context),
        plan.key().getExpressionString());
  }

  /**
   * The value of a key expression as a string, or null when it gives null, or navigates into a
   * null ({@code #principal.name} without a principal, {@code #request.getHeader('X').trim()}
   * without the header): a missing key, not a failure of the application.
   */
  static String evaluate(Expression expression, EvaluationContext context) {
    Object value;
    try {
      value = expression.getValue(context);
    } catch (SpelEvaluationException e) {
      if (e.getMessageCode() == SpelMessage.PROPERTY_OR_FIELD_NOT_READABLE_ON_NULL
          || e.getMessageCode() == SpelMessage.METHOD_CALL_ON_NULL_OBJECT_NOT_ALLOWED) {
        return null;
      }
      throw e;
    }
    return value == null ? null : value.toString();
  }

  private Plan plan(Method method) {
    Plan plan = plans.get(method);
    if (plan == null) {
      Set<RateLimited> all = annotations(method);
      if (all.isEmpty()) {
        return null;
      }
      plan = newPlan(method, all);
      plans.put(method, plan);
    }
    return plan;
  }

  private Plan newPlan(Method method, Set<RateLimited> all) {
    List<String> limiters = new ArrayList<>();
    String key = null;
    long permits = 0;
    for (RateLimited r : all) {
      if (key != null && (!key.equals(r.key()) || permits != r.permits())) {
        throw new IllegalStateException("@RateLimited on " + describe(method) + ": several"
            + " annotations form one all-or-nothing quota and must have the same key and"
            + " permits; found key '" + key + "' permits " + permits + " and key '" + r.key()
            + "' permits " + r.permits());
      }
      key = r.key();
      permits = r.permits();
      limiters.add(r.limiter());
    }
    Target target;
    try {
      target = catalog.get().target(limiters, permits);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("@RateLimited on " + describe(method) + ": "
          + e.getMessage(), e);
    }
    if (key.isEmpty()) {
      return new Plan(target, null, method.getDeclaringClass().getName() + "#"
          + method.getName());
    }
    try {
      return new Plan(target, PARSER.parseExpression(key), null);
    } catch (org.springframework.expression.ParseException e) {
      throw new IllegalStateException("@RateLimited on " + describe(method) + ": key '" + key
          + "' is not a valid SpEL expression: " + e.getMessage(), e);
    }
  }

  static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName();
  }
}
