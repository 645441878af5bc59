package io.windowpane.spring.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/*
 * Design note: the tags are one set for the whole application (windowpane.metrics.tags), not
 * one per annotation or rule, because Prometheus requires every meter of one name to carry the
 * same tag keys: Micrometer's Prometheus registry refuses a windowpane.decisions meter with
 * other keys, which would silently drop those decisions. Every decision therefore carries every
 * tag, "none" where the expression gives nothing or there is no request (a call outside the web).
 */

/**
 * The application's extra tags on {@code windowpane.decisions}: tag name to SpEL over the
 * request ({@link RequestView}: ip, method, path, principal, header('X')). Immutable.
 */
public final class MetricTags {

  /** No extra tags. */
  public static final MetricTags NONE = new MetricTags(Map.of());

  /** The value of a tag whose expression gives null or nothing. */
  static final String NO_VALUE = "none";

  private static final Set<String> RESERVED = Set.of("limiter", "outcome", "degraded");

  private final Map<String, Expression> tags;

  private MetricTags(Map<String, Expression> tags) {
    this.tags = tags;
  }

  /**
   * Parses {@code tags} (name to SpEL).
   *
   * @throws IllegalArgumentException naming the property, for a reserved name or an expression
   *     that is not SpEL
   */
  public static MetricTags of(Map<String, String> tags) {
    if (tags == null || tags.isEmpty()) {
      return NONE;
    }
    SpelExpressionParser parser = new SpelExpressionParser();
    Map<String, Expression> parsed = new LinkedHashMap<>();
    tags.forEach((name, text) -> {
      String at = "windowpane.metrics.tags." + name;
      if (RESERVED.contains(name)) {
        throw new IllegalArgumentException(at + ": the tag names limiter, outcome and degraded"
            + " are windowpane's own; choose another name");
      }
      try {
        parsed.put(name, parser.parseExpression(text));
      } catch (org.springframework.expression.ParseException | NullPointerException e) {
        throw new IllegalArgumentException(at + " must be a SpEL expression over ip, method,"
            + " path, principal, header('name'), was '" + text + "'");
      }
    });
    return new MetricTags(Map.copyOf(parsed));
  }

  public boolean isEmpty() {
    return tags.isEmpty();
  }

  /** Every tag's value for {@code request}; {@code none} for all when it is null. */
  Map<String, String> values(RequestView request) {
    if (tags.isEmpty()) {
      return Map.of();
    }
    Map<String, String> values = new LinkedHashMap<>();
    SimpleEvaluationContext context = request == null ? null
        : SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods()
            .withRootObject(request).build();
    tags.forEach((name, expression) -> {
      String value = context == null ? null : RateLimitedInterceptor.evaluate(expression, context);
      values.put(name, value == null || value.isEmpty() ? NO_VALUE : value);
    });
    return values;
  }
}
