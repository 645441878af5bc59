package io.windowpane.spring.internal;

import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.WindowpaneProperties.Rule;
import io.windowpane.spring.internal.RateLimitGuard.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PatternParseException;
import org.springframework.web.util.pattern.PathPatternParser;

/** The {@code windowpane.filter.rules}, validated at start-up, and which apply to a request. */
public final class PathRules {

  private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH",
      "DELETE", "OPTIONS", "TRACE");

  /** One validated rule. */
  record Compiled(PathPattern pattern, Set<String> methods, Target target, Expression key,
      Expression execute, Expression skip) {}

  private final List<Compiled> rules = new ArrayList<>();

  /**
   * @throws IllegalArgumentException naming the property ({@code windowpane.filter.rules[0].limiter})
   *     and what it allows
   */
  public PathRules(List<Rule> rules, WindowpaneCatalog catalog) {
    SpelExpressionParser parser = new SpelExpressionParser();
    for (int i = 0; i < rules.size(); i++) {
      Rule r = rules.get(i);
      String at = "windowpane.filter.rules[" + i + "].";
      if (r.getPath() == null || r.getPath().isEmpty()) {
        throw new IllegalArgumentException(at + "path is required, e.g. /api/**");
      }
      PathPattern pattern;
      try {
        pattern = PathPatternParser.defaultInstance.parse(r.getPath());
      } catch (PatternParseException e) {
        throw new IllegalArgumentException(at + "path must be a path pattern such as /api/**,"
            + " was '" + r.getPath() + "': " + e.getMessage());
      }
      Set<String> methods = new java.util.LinkedHashSet<>();
      for (String m : r.getMethods()) {
        String upper = m.toUpperCase(Locale.ROOT);
        if (!METHODS.contains(upper)) {
          throw new IllegalArgumentException(at + "methods must be among " + METHODS
              + ", was '" + m + "'");
        }
        methods.add(upper);
      }
      if (r.getLimiter() == null) {
        throw new IllegalArgumentException(at + "limiter is required: one of "
            + catalog.limiters().keySet());
      }
      Target target;
      try {
        target = catalog.target(List.of(r.getLimiter()), r.getPermits());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(at + e.getMessage());
      }
      Expression key;
      try {
        key = parser.parseExpression(r.getKey());
      } catch (org.springframework.expression.ParseException e) {
        throw new IllegalArgumentException(at + "key must be a SpEL expression over ip, method,"
            + " path, principal, header('name'), was '" + r.getKey() + "': " + e.getMessage());
      }
      Expression execute = condition(parser, at + "executeCondition", r.getExecuteCondition());
      Expression skip = condition(parser, at + "skipCondition", r.getSkipCondition());
      this.rules.add(new Compiled(pattern, Set.copyOf(methods), target, key, execute, skip));
    }
  }

  private static Expression condition(SpelExpressionParser parser, String property,
      String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return parser.parseExpression(text);
    } catch (org.springframework.expression.ParseException e) {
      throw new IllegalArgumentException(property + " must be a SpEL expression over ip,"
          + " method, path, principal, header('name'), was '" + text + "': " + e.getMessage());
    }
  }

  /** Whether {@code rule} applies to {@code request} by its execute and skip conditions. */
  static boolean applies(Compiled rule, RequestView request) {
    if (rule.execute() == null && rule.skip() == null) {
      return true;
    }
    SimpleEvaluationContext context = context(request);
    return (rule.execute() == null
        || Boolean.TRUE.equals(rule.execute().getValue(context, Boolean.class)))
        && (rule.skip() == null
        || !Boolean.TRUE.equals(rule.skip().getValue(context, Boolean.class)));
  }

  private static SimpleEvaluationContext context(RequestView request) {
    return SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods()
        .withRootObject(request).build();
  }

  public boolean isEmpty() {
    return rules.isEmpty();
  }

  /** The rules matching a request, in order. */
  List<Compiled> matching(String method, String path) {
    PathContainer container = PathContainer.parsePath(path);
    List<Compiled> out = new ArrayList<>(1);
    for (Compiled c : rules) {
      if ((c.methods().isEmpty() || c.methods().contains(method))
          && c.pattern().matches(container)) {
        out.add(c);
      }
    }
    return out;
  }

  /**
   * The key of {@code request} for {@code rule}, by {@code windowpane.keys.on-null} when the
   * expression gives nothing: the shared key, or null to skip the rule.
   *
   * @throws io.windowpane.spring.RateLimitKeyException the key is missing, policy reject
   */
  static String key(Compiled rule, RequestView request, RateLimitGuard guard) {
    SimpleEvaluationContext context = context(request);
    return guard.keyOrPolicy(rule.target(),
        RateLimitedInterceptor.evaluate(rule.key(), context), rule.key().getExpressionString());
  }
}
