package io.windowpane.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Takes {@link #permits()} from the limiter {@link #limiter()} (a {@code windowpane.limiters.*}
 * entry) for the key {@link #key()} before the method runs; when the limiter denies, the method
 * does not run and {@link RateLimitExceededException} is thrown, which the web layer answers
 * with 429 problem+json and the {@code RateLimit}, {@code RateLimit-Policy} and
 * {@code Retry-After} headers. A limiter in shadow mode never denies: the method runs and the
 * would-be denial is counted and logged.
 *
 * <p>Several annotations on one method form one all-or-nothing quota: their limits are checked
 * in one atomic call, and a denial records nothing in any of them. For that they must share the
 * same {@code key} expression and {@code permits}, and either all or none of their limiters be in
 * shadow mode (checked at start-up). The combined quota keeps its own windows, under the limiter
 * name {@code a:b} for limiters {@code a} and {@code b}.
 *
 * <p>On a type, it applies to every public method the type declares that has no
 * {@code @RateLimited} of its own (a method's own annotations replace the type's), except those
 * marked {@link RateLimitExempt}; its empty key then means one key per method.
 *
 * <p>Works on public methods of Spring beans called through their proxy (controllers and
 * services alike). Methods returning {@code Mono} or {@code Flux} are checked when subscribed,
 * without blocking.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

  /** The name of a configured limiter ({@code windowpane.limiters.<name>}). */
  String limiter();

  /**
   * A SpEL expression for the key, over the method's arguments by name ({@code #userId}, or
   * {@code #p0}), {@code #request} (the current {@code HttpServletRequest}, or on WebFlux the
   * {@code ServerHttpRequest}) and {@code #principal} (the current {@code Principal}, or null).
   * Empty: one key for every call, the method's class and name.
   */
  String key() default "";

  /** Permits to take, 1 to the smallest limit of the limiter. */
  long permits() default 1;

  /**
   * SpEL over the same variables as {@link #key()}: the call is limited only when it gives
   * {@code true}. Empty (the default): always.
   */
  String executeCondition() default "";

  /**
   * SpEL over the same variables as {@link #key()}: the call is not limited when it gives
   * {@code true} (e.g. {@code #request.getHeader('X-Internal') != null}). Empty: never skipped.
   */
  String skipCondition() default "";

  /**
   * The name of a method of the same bean called instead of throwing when the call is denied:
   * the same parameters followed by a {@link RateLimitExceededException} (the denial), and a
   * return type the method's callers accept (for {@code Mono} and {@code Flux}, the same kind of
   * publisher). Checked at start-up. Empty: the denial is thrown.
   */
  String fallbackMethod() default "";

  /** Holds several {@link RateLimited} on one method or type. */
  @Target({ElementType.METHOD, ElementType.TYPE})
  @Retention(RetentionPolicy.RUNTIME)
  @Documented
  @interface List {
    RateLimited[] value();
  }
}
