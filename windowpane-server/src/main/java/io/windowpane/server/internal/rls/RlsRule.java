package io.windowpane.server.internal.rls;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.windowpane.Algorithm;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

/**
 * One {@code rate_limit} block of an envoyproxy/ratelimit configuration, as a windowpane limiter
 * with a sliding window of one unit. Immutable once {@link #bind bound} to an engine.
 *
 * <p>The limiter's name is {@code rls.} and 16 hex digits of SHA-256 over the domain, the
 * rule's path and its limit (unit, requests per unit, algorithm), so every node with the same
 * file shares the same engine state (Redis keys), a path of any length or character fits the
 * library's 64-character name rule, and a reload that changes a rule's limit gets a limiter of
 * its own (counting afresh) instead of clashing with the old one's shape. A rule with
 * {@code requests_per_unit: 0} (a deny list) or {@code unlimited: true} has no limiter.
 */
final class RlsRule {

  private final String domain;
  private final String path;
  private final String name;
  private final List<String> replaces;
  private final boolean unlimited;
  private final boolean shadow;
  private final boolean detailedMetric;
  private final long requestsPerUnit;
  private final RateLimitResponse.RateLimit.Unit unit;
  private final Algorithm algorithm;
  private RateLimiter limiter;

  RlsRule(String domain, String path, String name, List<String> replaces, boolean unlimited,
      boolean shadow, boolean detailedMetric, long requestsPerUnit,
      RateLimitResponse.RateLimit.Unit unit, Algorithm algorithm) {
    this.domain = domain;
    this.path = path;
    this.name = name;
    this.replaces = List.copyOf(replaces);
    this.unlimited = unlimited;
    this.shadow = shadow;
    this.detailedMetric = detailedMetric;
    this.requestsPerUnit = requestsPerUnit;
    this.unit = unit;
    this.algorithm = algorithm;
  }

  /** The window of one {@code unit}: month is 30 days, year 365 days. */
  static Duration length(RateLimitResponse.RateLimit.Unit unit) {
    switch (unit) {
      case SECOND: return Duration.ofSeconds(1);
      case MINUTE: return Duration.ofMinutes(1);
      case HOUR: return Duration.ofHours(1);
      case DAY: return Duration.ofDays(1);
      case WEEK: return Duration.ofDays(7);
      case MONTH: return Duration.ofDays(30);
      case YEAR: return Duration.ofDays(365);
      default: throw new IllegalArgumentException("unit must be second, minute, hour, day, week,"
          + " month or year, was " + unit);
    }
  }

  /**
   * Panes of a {@code panes} window per unit: 100 ms for a second, 1 s for a minute, 1 min for
   * an hour, 15 min for a day, 1 h for a week, 6 h for a month, 1 day for a year. A panes window
   * may miss up to one pane of its oldest events (docs/window-model.md).
   */
  static int panes(RateLimitResponse.RateLimit.Unit unit) {
    switch (unit) {
      case SECOND: return 10;
      case MINUTE: return 60;
      case HOUR: return 60;
      case DAY: return 96;
      case WEEK: return 168;
      case MONTH: return 120;
      default: return 365;
    }
  }

  /** The window of this rule's limit. */
  static WindowSpec window(RateLimitResponse.RateLimit.Unit unit, Algorithm algorithm) {
    Duration length = length(unit);
    switch (algorithm) {
      case SLIDING_LOG: return WindowSpec.log(length);
      case SLIDING_WEIGHTED: return WindowSpec.weighted(length);
      default: return WindowSpec.panes(length, panes(unit));
    }
  }

  /** Builds the limiter on {@code wp}; rules without a limit keep none. */
  void bind(Windowpane wp) {
    if (!unlimited && requestsPerUnit > 0) {
      Limit limit = Limit.of(requestsPerUnit, window(unit, algorithm))
          .named(unit.name().toLowerCase(java.util.Locale.ROOT));
      limiter = wp.limiter(limiterName(domain, path + "\n" + unit + "/" + requestsPerUnit + "/"
          + algorithm), Quota.of(limit));
    }
  }

  /** {@code rls.} and 16 hex digits of SHA-256 over {@code domain} and {@code path}. */
  static String limiterName(String domain, String path) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest((domain + "\n" + path).getBytes(StandardCharsets.UTF_8));
      return "rls." + HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  String domain() {
    return domain;
  }

  /** Domain and descriptor path, e.g. {@code messaging.message_type_marketing.to_number}. */
  String path() {
    return path;
  }

  /** The {@code rate_limit.name}, or empty. */
  String name() {
    return name;
  }

  List<String> replaces() {
    return replaces;
  }

  boolean unlimited() {
    return unlimited;
  }

  boolean shadow() {
    return shadow;
  }

  boolean detailedMetric() {
    return detailedMetric;
  }

  long requestsPerUnit() {
    return requestsPerUnit;
  }

  RateLimitResponse.RateLimit.Unit unit() {
    return unit;
  }

  Algorithm algorithm() {
    return algorithm;
  }

  /** The limiter; null when unlimited or {@code requests_per_unit} is 0. */
  RateLimiter limiter() {
    return limiter;
  }
}
