package io.windowpane.spring;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The starter's own {@code windowpane.*} properties: on/off and the filter's path rules. The
 * library's vocabulary ({@code windowpane.engine}, {@code limiters}, {@code counters},
 * {@code stats}) is read by the service's readers instead (see docs/spring-boot.md), and is
 * described to IDEs by hand-written metadata.
 */
@ConfigurationProperties(prefix = "windowpane")
public class WindowpaneProperties {

  /** Whether the starter configures anything at all. */
  private boolean enabled = true;

  private final Filter filter = new Filter();

  private final Keys keys = new Keys();

  private final Response response = new Response();

  private final Metrics metrics = new Metrics();

  private final Tracing tracing = new Tracing();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Filter getFilter() {
    return filter;
  }

  public Keys getKeys() {
    return keys;
  }

  public Response getResponse() {
    return response;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  public Tracing getTracing() {
    return tracing;
  }

  /** Spans of decisions and backend calls, with Micrometer Tracing (docs/observability.md). */
  public static class Tracing {

    /**
     * Whether each decision is an observation (a span with Micrometer Tracing) with a child per
     * backend call, in the application's current trace. Applies when Micrometer Tracing and an
     * ObservationRegistry are present.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /** Micrometer meters. */
  public static class Metrics {

    /**
     * Extra tags on every windowpane.decisions meter: tag name to SpEL over the request (ip,
     * method, path, principal, header('X-Plan')); "none" where it gives nothing or outside a web
     * request. Mind the number of distinct values: each is a meter.
     */
    private Map<String, String> tags = new LinkedHashMap<>();

    public Map<String, String> getTags() {
      return tags;
    }

    public void setTags(Map<String, String> tags) {
      this.tags = tags;
    }
  }

  /** What a key expression that gives null (or an empty string) does. */
  public enum NullKeyPolicy {
    /** Count every such call under one shared key, {@code -}. */
    SHARED,
    /** Refuse the call: {@link RateLimitKeyException}, answered 400 problem+json on the web. */
    REJECT,
    /** Do not limit the call: it runs, nothing is counted, no rate-limit headers are sent. */
    SKIP
  }

  /** Keys of {@code @RateLimited} and of the path rules. */
  public static class Keys {

    /**
     * What a key expression that evaluates to null or an empty string does (also a null
     * navigated into, such as #principal.name without a principal): shared counts it under the
     * key "-", reject answers 400, skip lets the call through unlimited.
     */
    private NullKeyPolicy onNull = NullKeyPolicy.SHARED;

    public NullKeyPolicy getOnNull() {
      return onNull;
    }

    public void setOnNull(NullKeyPolicy onNull) {
      this.onNull = onNull;
    }
  }

  /** The rate-limit headers of every limited response, and the 429. */
  public static class Response {

    private final Headers headers = new Headers();

    public Headers getHeaders() {
      return headers;
    }
  }

  /** The rate-limit headers; an empty name leaves that header out. */
  public static class Headers {

    /**
     * Whether responses carry the RateLimit and RateLimit-Policy headers at all (Retry-After on
     * a 429 is controlled by its own name).
     */
    private boolean enabled = true;

    /**
     * Whether limiters in shadow mode send rate-limit headers too; off by default, so that a
     * client never backs off from a limit that is not enforced.
     */
    private boolean shadow = false;

    /** Name of the header with the limits (IETF draft: RateLimit-Policy). */
    private String policy = "RateLimit-Policy";

    /** Name of the header with the remaining permits and reset (IETF draft: RateLimit). */
    private String limit = "RateLimit";

    /** Name of the header with the seconds to wait on a 429. */
    private String retryAfter = "Retry-After";

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public boolean isShadow() {
      return shadow;
    }

    public void setShadow(boolean shadow) {
      this.shadow = shadow;
    }

    public String getPolicy() {
      return policy;
    }

    public void setPolicy(String policy) {
      this.policy = policy;
    }

    public String getLimit() {
      return limit;
    }

    public void setLimit(String limit) {
      this.limit = limit;
    }

    public String getRetryAfter() {
      return retryAfter;
    }

    public void setRetryAfter(String retryAfter) {
      this.retryAfter = retryAfter;
    }
  }

  /** Rate limits by request path, without code: a servlet Filter or a WebFlux WebFilter. */
  public static class Filter {

    /**
     * Order of the filter among the application's filters; the default runs after Spring
     * Security's (-100), so that rules can key on the principal.
     */
    private int order = 0;

    /**
     * Rules, each applied to every request it matches, in order; the first that denies answers
     * 429 (permits taken by earlier rules for that request stay taken).
     */
    private List<Rule> rules = new ArrayList<>();

    public int getOrder() {
      return order;
    }

    public void setOrder(int order) {
      this.order = order;
    }

    public List<Rule> getRules() {
      return rules;
    }

    public void setRules(List<Rule> rules) {
      this.rules = rules;
    }
  }

  /** One path rule. */
  public static class Rule {

    /** Path pattern of the requests it applies to (Spring's PathPattern syntax: /api/**). */
    private String path;

    /** HTTP methods it applies to (GET, POST...); empty for every method. */
    private List<String> methods = new ArrayList<>();

    /** The limiter to take permits from, a windowpane.limiters entry. */
    private String limiter;

    /**
     * SpEL over the request: ip, method, path, principal (its name or null), header('X-Api-Key');
     * string literals in quotes.
     */
    private String key = "ip";

    /** Permits each request takes, 1 to the smallest limit of the limiter. */
    private long permits = 1;

    /**
     * SpEL over the request, as key: the rule applies only when it gives true (e.g.
     * "header('X-Plan') == 'free'"). Empty: always.
     */
    private String executeCondition;

    /**
     * SpEL over the request, as key: the rule does not apply when it gives true (e.g.
     * "ip == '10.0.0.1'"). Empty: never skipped.
     */
    private String skipCondition;

    public String getExecuteCondition() {
      return executeCondition;
    }

    public void setExecuteCondition(String executeCondition) {
      this.executeCondition = executeCondition;
    }

    public String getSkipCondition() {
      return skipCondition;
    }

    public void setSkipCondition(String skipCondition) {
      this.skipCondition = skipCondition;
    }

    public String getPath() {
      return path;
    }

    public void setPath(String path) {
      this.path = path;
    }

    public List<String> getMethods() {
      return methods;
    }

    public void setMethods(List<String> methods) {
      this.methods = methods;
    }

    public String getLimiter() {
      return limiter;
    }

    public void setLimiter(String limiter) {
      this.limiter = limiter;
    }

    public String getKey() {
      return key;
    }

    public void setKey(String key) {
      this.key = key;
    }

    public long getPermits() {
      return permits;
    }

    public void setPermits(long permits) {
      this.permits = permits;
    }
  }
}
