package io.windowpane.spring.internal;

import io.windowpane.spring.RateLimitExceededException;
import io.windowpane.spring.RateLimitExempt;
import io.windowpane.spring.RateLimited;
import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.internal.RateLimitGuard.Outcome;
import io.windowpane.spring.internal.RateLimitGuard.Target;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.UndeclaredThrowableException;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.springframework.util.ReflectionUtils;

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

  /**
   * A method's quota, key and conditions; {@code fallback}: the method called with the denial
   * instead of throwing, or null.
   */
  record Plan(Target target, Expression key, String fixedKey, Expression execute,
      Expression skip, Method fallback) {}

  /** What one call takes: its key. */
  record Call(String key) {}

  private record PlanKey(Method method, Class<?> type) {}

  /** A method without annotations. */
  private static final Plan NONE = new Plan(null, null, null, null, null, null);

  private final Supplier<WindowpaneCatalog> catalog;
  private final Supplier<RateLimitGuard> guard;
  private final Map<PlanKey, Plan> plans = new ConcurrentHashMap<>();

  public RateLimitedInterceptor(Supplier<WindowpaneCatalog> catalog,
      Supplier<RateLimitGuard> guard) {
    this.catalog = catalog;
    this.guard = guard;
  }

  /**
   * The annotations that apply to {@code method} of a bean of class {@code type}: its own, or
   * else those of the type when the method is public, not static, not one of {@code Object}'s
   * and not {@link RateLimitExempt}; empty when none.
   */
  static Set<RateLimited> annotations(Method method, Class<?> type) {
    Set<RateLimited> own =
        AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class);
    if (!own.isEmpty()) {
      return own;
    }
    int modifiers = method.getModifiers();
    if (!Modifier.isPublic(modifiers) || Modifier.isStatic(modifiers) || method.isBridge()
        || method.isSynthetic() || method.getDeclaringClass() == Object.class
        || AnnotatedElementUtils.hasAnnotation(method, RateLimitExempt.class)) {
      return Set.of();
    }
    return AnnotatedElementUtils.findMergedRepeatableAnnotations(
        type == null ? method.getDeclaringClass() : type, RateLimited.class);
  }

  /**
   * Checks the annotations of {@code method} against the configuration now (start-up), so
   * that a wrong limiter name, permits, expression or fallback fails there rather than on the
   * first call.
   *
   * @throws IllegalStateException naming the method and the problem
   */
  void validate(Method method, Class<?> type) {
    plan(method, type);
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Object target = invocation.getThis();
    Class<?> type = target == null ? null : AopUtils.getTargetClass(target);
    Method method = target == null ? invocation.getMethod()
        : AopUtils.getMostSpecificMethod(invocation.getMethod(), type);
    Plan plan = plan(method, type);
    if (plan == null) {
      return invocation.proceed();
    }
    if (REACTOR && org.reactivestreams.Publisher.class.isAssignableFrom(method.getReturnType())
        && invocation instanceof ProxyMethodInvocation proxy) {
      return ReactiveCheck.check(method, plan, guard.get(), proxy, this);
    }
    HttpBits bits = SERVLET ? ServletBits.current() : HttpBits.NONE;
    Call call = call(plan, method, invocation.getArguments(), bits.request(), bits.principal());
    if (call == null) {
      return invocation.proceed(); // a condition, or windowpane.keys.on-null: skip
    }
    Outcome outcome = guard.get().acquire(plan.target(), call.key(), bits.view());
    if (!outcome.letThrough() && plan.fallback() != null) {
      bits.headers(outcome.fallbackHeaders());
      return fallback(plan, target, invocation.getArguments(), outcome.exception());
    }
    bits.headers(outcome.headers());
    if (!outcome.letThrough()) {
      throw outcome.exception();
    }
    return invocation.proceed();
  }

  /** Calls the fallback method of {@code plan} on {@code target} with the denial. */
  static Object fallback(Plan plan, Object target, Object[] args,
      RateLimitExceededException denial) {
    Object[] withDenial = Arrays.copyOf(args, args.length + 1);
    withDenial[args.length] = denial;
    try {
      return plan.fallback().invoke(target, withDenial);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new UndeclaredThrowableException(cause);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * What one call takes, or null when it is not limited: the execute condition gave false, the
   * skip condition gave true, or the key is missing and {@code windowpane.keys.on-null} is skip.
   *
   * @throws io.windowpane.spring.RateLimitKeyException the key is missing, policy reject
   */
  Call call(Plan plan, Method method, Object[] args, Object request, Principal principal) {
    if (plan.key() == null && plan.execute() == null && plan.skip() == null) {
      return new Call(plan.fixedKey());
    }
    MethodBasedEvaluationContext context =
        new MethodBasedEvaluationContext(args, method, args, NAMES);
    context.setVariable("request", request);
    context.setVariable("principal", principal);
    if (plan.execute() != null
        && !Boolean.TRUE.equals(plan.execute().getValue(context, Boolean.class))) {
      return null;
    }
    if (plan.skip() != null
        && Boolean.TRUE.equals(plan.skip().getValue(context, Boolean.class))) {
      return null;
    }
    if (plan.key() == null) {
      return new Call(plan.fixedKey());
    }
    String key = guard.get().keyOrPolicy(plan.target(), evaluate(plan.key(), context),
        plan.key().getExpressionString());
    return key == null ? null : new Call(key);
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

  private Plan plan(Method method, Class<?> type) {
    PlanKey at = new PlanKey(method, type);
    Plan plan = plans.get(at);
    if (plan == null) {
      Set<RateLimited> all = annotations(method, type);
      plan = all.isEmpty() ? NONE : newPlan(method, type, all);
      plans.put(at, plan);
    }
    return plan == NONE ? null : plan;
  }

  private Plan newPlan(Method method, Class<?> type, Set<RateLimited> all) {
    List<String> limiters = new ArrayList<>();
    RateLimited first = null;
    for (RateLimited r : all) {
      if (first != null && (!first.key().equals(r.key()) || first.permits() != r.permits()
          || !first.executeCondition().equals(r.executeCondition())
          || !first.skipCondition().equals(r.skipCondition())
          || !first.fallbackMethod().equals(r.fallbackMethod()))) {
        throw new IllegalStateException("@RateLimited on " + describe(method) + ": several"
            + " annotations form one all-or-nothing quota and must have the same key, permits,"
            + " conditions and fallback method; found key '" + first.key() + "' permits "
            + first.permits() + " and key '" + r.key() + "' permits " + r.permits());
      }
      first = first == null ? r : first;
      limiters.add(r.limiter());
    }
    Target target;
    try {
      target = catalog.get().target(limiters, first.permits());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("@RateLimited on " + describe(method) + ": "
          + e.getMessage(), e);
    }
    Expression execute = parse(method, "executeCondition", first.executeCondition());
    Expression skip = parse(method, "skipCondition", first.skipCondition());
    Method fallback = fallback(method, type, first.fallbackMethod());
    if (first.key().isEmpty()) {
      return new Plan(target, null, method.getDeclaringClass().getName() + "#"
          + method.getName(), execute, skip, fallback);
    }
    return new Plan(target, parse(method, "key", first.key()), null, execute, skip, fallback);
  }

  private static Expression parse(Method method, String attribute, String text) {
    if (text.isEmpty()) {
      return null;
    }
    try {
      return PARSER.parseExpression(text);
    } catch (org.springframework.expression.ParseException e) {
      throw new IllegalStateException("@RateLimited on " + describe(method) + ": " + attribute
          + " '" + text + "' is not a valid SpEL expression: " + e.getMessage(), e);
    }
  }

  /**
   * The fallback {@code name} of {@code method}: a method of the bean with the same parameters
   * and a last one that takes a {@link RateLimitExceededException}, whose return type the
   * method's callers accept.
   */
  private static Method fallback(Method method, Class<?> type, String name) {
    if (name.isEmpty()) {
      return null;
    }
    Class<?> in = type == null ? method.getDeclaringClass() : type;
    Class<?>[] params = method.getParameterTypes();
    for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(in)) {
      Class<?>[] p = candidate.getParameterTypes();
      if (candidate.getName().equals(name) && p.length == params.length + 1
          && Arrays.equals(Arrays.copyOf(p, params.length), params)
          && p[params.length].isAssignableFrom(RateLimitExceededException.class)) {
        if (!ClassUtils.resolvePrimitiveIfNecessary(method.getReturnType()).isAssignableFrom(
            ClassUtils.resolvePrimitiveIfNecessary(candidate.getReturnType()))) {
          throw new IllegalStateException("@RateLimited on " + describe(method)
              + ": fallbackMethod " + name + " returns " + candidate.getReturnType()
              .getSimpleName() + ", which " + method.getName() + "'s callers do not accept ("
              + method.getReturnType().getSimpleName() + ")");
        }
        ReflectionUtils.makeAccessible(candidate);
        return candidate;
      }
    }
    throw new IllegalStateException("@RateLimited on " + describe(method) + ": fallbackMethod "
        + name + " must be a method of " + in.getSimpleName() + " with the parameters of "
        + method.getName() + " followed by a RateLimitExceededException");
  }

  static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName();
  }
}
