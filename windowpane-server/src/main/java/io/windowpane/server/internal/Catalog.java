package io.windowpane.server.internal;

import io.windowpane.config.RateLimitHeaders;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** What the service offers, by name: the configured limiters, counters and statistics. */
public final class Catalog {

  /**
   * A limiter, what its replies repeat (the policy header), and whether it is in shadow mode
   * (decides and counts, never denies).
   */
  record LimiterEntry(String name, RateLimiter limiter, String policyHeader, boolean shadow) {
    Quota quota() {
      return limiter.quota();
    }
  }

  private final Windowpane wp;
  private final int topKeys;
  /** Replaced whole when a reload changes a limiter's permits (its policy header with them). */
  private volatile Map<String, LimiterEntry> limiters;
  private final Map<String, WindowCounter> counters = new LinkedHashMap<>();
  private final Map<String, WindowStats> stats = new LinkedHashMap<>();

  /** {@code topKeys} > 0 turns top keys on for every window, with that many counters. */
  Catalog(Windowpane wp, Map<String, Quota> limiters, Set<String> shadow,
      Map<String, WindowSpec> counters, Map<String, StatsSpec> stats, int topKeys) {
    this.wp = wp;
    this.topKeys = topKeys;
    Map<String, LimiterEntry> entries = new LinkedHashMap<>();
    limiters.forEach((name, quota) -> entries.put(name, new LimiterEntry(name,
        wp.limiter(name, withTopKeys(quota)), RateLimitHeaders.policy(quota),
        shadow.contains(name))));
    this.limiters = Collections.unmodifiableMap(entries);
    counters.forEach((name, spec) -> this.counters.put(name,
        wp.counter(name, topKeys > 0 ? spec.withTopKeys(topKeys) : spec)));
    stats.forEach((name, spec) -> this.stats.put(name,
        wp.stats(name, topKeys > 0 ? spec.withTopKeys(topKeys) : spec)));
  }

  private Quota withTopKeys(Quota quota) {
    return topKeys > 0 ? quota.withTopKeys(topKeys) : quota;
  }

  /**
   * What {@link #apply} did: the limiters whose permits changed, and each change it could not
   * make, which waits for a restart.
   */
  public record Applied(List<String> reconfigured, List<String> notApplied) {}

  /**
   * Applies the limiters, counters and statistics windows of a configuration read again: a
   * limiter whose limits changed in permits only is reconfigured ({@link
   * Windowpane#reconfigure}: its keys keep their counts, the new permits decide the next
   * request); unchanged ones are left alone; every other change is reported, not made.
   */
  synchronized Applied apply(Map<String, Quota> next, Set<String> shadow,
      Map<String, WindowSpec> nextCounters, Map<String, StatsSpec> nextStats) {
    List<String> reconfigured = new ArrayList<>();
    List<String> notApplied = new ArrayList<>();
    Map<String, LimiterEntry> entries = new LinkedHashMap<>(limiters);
    next.forEach((name, quota) -> {
      LimiterEntry entry = entries.get(name);
      if (entry == null) {
        notApplied.add("limiters." + name + " is new: a new limiter takes a restart");
      } else if (entry.shadow() != shadow.contains(name)) {
        notApplied.add("limiters." + name + ".shadow changed: shadow mode changes at a restart");
      } else if (!entry.limiter().quota().equals(withTopKeys(quota))) {
        try {
          RateLimiter limiter = wp.reconfigure(name, withTopKeys(quota));
          entries.put(name, new LimiterEntry(name, limiter, RateLimitHeaders.policy(quota),
              entry.shadow()));
          reconfigured.add(name);
        } catch (IllegalArgumentException e) {
          notApplied.add("limiters." + name + ": " + e.getMessage());
        }
      }
    });
    for (String name : limiters.keySet()) {
      if (!next.containsKey(name)) {
        notApplied.add("limiters." + name + " was removed: it stays until a restart");
      }
    }
    if (!nextCounters.keySet().equals(counters.keySet()) || counters.entrySet().stream()
        .anyMatch(e -> !e.getValue().spec().equals(spec(nextCounters.get(e.getKey()))))) {
      notApplied.add("counters changed: counters change at a restart");
    }
    if (!nextStats.keySet().equals(stats.keySet()) || stats.entrySet().stream()
        .anyMatch(e -> !e.getValue().spec().equals(spec(nextStats.get(e.getKey()))))) {
      notApplied.add("stats changed: statistics windows change at a restart");
    }
    limiters = Collections.unmodifiableMap(entries);
    return new Applied(reconfigured, notApplied);
  }

  private WindowSpec spec(WindowSpec spec) {
    return topKeys > 0 ? spec.withTopKeys(topKeys) : spec;
  }

  private StatsSpec spec(StatsSpec spec) {
    return topKeys > 0 ? spec.withTopKeys(topKeys) : spec;
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
    return limiters;
  }

  Map<String, WindowCounter> counters() {
    return Collections.unmodifiableMap(counters);
  }

  Map<String, WindowStats> stats() {
    return Collections.unmodifiableMap(stats);
  }
}
