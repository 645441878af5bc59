package io.windowpane.server.internal;

import io.windowpane.config.RateLimitHeaders;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** What the service offers, by name: the configured limiters, counters and statistics. */
final class Catalog {

  /**
   * A limiter, what its replies repeat (the policy header), and whether it is in shadow mode
   * (decides and counts, never denies).
   */
  record LimiterEntry(String name, RateLimiter limiter, String policyHeader, boolean shadow) {
    Quota quota() {
      return limiter.quota();
    }
  }

  private final Map<String, LimiterEntry> limiters = new LinkedHashMap<>();
  private final Map<String, WindowCounter> counters = new LinkedHashMap<>();
  private final Map<String, WindowStats> stats = new LinkedHashMap<>();

  /** {@code topKeys} > 0 turns top keys on for every window, with that many counters. */
  Catalog(Windowpane wp, Map<String, Quota> limiters, Set<String> shadow,
      Map<String, WindowSpec> counters, Map<String, StatsSpec> stats, int topKeys) {
    limiters.forEach((name, quota) -> this.limiters.put(name, new LimiterEntry(name,
        wp.limiter(name, topKeys > 0 ? quota.withTopKeys(topKeys) : quota),
        RateLimitHeaders.policy(quota), shadow.contains(name))));
    counters.forEach((name, spec) -> this.counters.put(name,
        wp.counter(name, topKeys > 0 ? spec.withTopKeys(topKeys) : spec)));
    stats.forEach((name, spec) -> this.stats.put(name,
        wp.stats(name, topKeys > 0 ? spec.withTopKeys(topKeys) : spec)));
  }

  LimiterEntry limiter(String name) {
    LimiterEntry entry = limiters.get(name);
    if (entry == null) {
      throw ApiError.unknown("limiter", name, limiters.keySet());
    }
    return entry;
  }

  WindowCounter counter(String name) {
    WindowCounter counter = counters.get(name);
    if (counter == null) {
      throw ApiError.unknown("counter", name, counters.keySet());
    }
    return counter;
  }

  WindowStats stats(String name) {
    WindowStats window = stats.get(name);
    if (window == null) {
      throw ApiError.unknown("stats", name, stats.keySet());
    }
    return window;
  }

  Map<String, LimiterEntry> limiters() {
    return Collections.unmodifiableMap(limiters);
  }

  Map<String, WindowCounter> counters() {
    return Collections.unmodifiableMap(counters);
  }

  Map<String, WindowStats> stats() {
    return Collections.unmodifiableMap(stats);
  }
}
