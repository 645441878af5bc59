package io.windowpane.spring;

import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.config.WindowpaneConfig;
import io.windowpane.spring.internal.RateLimitGuard.Target;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The limiters, counters and statistics windows of the {@code windowpane.*} properties, built
 * once on the application's {@link Windowpane}. Inject it to use them in code:
 * {@code catalog.counter("logins").add(key)}. Thread-safe.
 */
public final class WindowpaneCatalog {

  private final Windowpane windowpane;
  private final Map<String, RateLimiter> limiters = new LinkedHashMap<>();
  private final Set<String> shadow;
  private final Map<String, WindowCounter> counters = new LinkedHashMap<>();
  private final Map<String, WindowStats> stats = new LinkedHashMap<>();
  private final Map<List<String>, RateLimiter> combined = new ConcurrentHashMap<>();

  /** Builds every limiter, counter and statistics window of {@code config} on {@code wp}. */
  public WindowpaneCatalog(Windowpane wp, WindowpaneConfig config) {
    this.windowpane = wp;
    config.limiters().forEach((name, quota) -> limiters.put(name, wp.limiter(name, quota)));
    this.shadow = Set.copyOf(config.shadowLimiters());
    config.counters().forEach((name, spec) -> counters.put(name, wp.counter(name, spec)));
    config.stats().forEach((name, spec) -> stats.put(name, wp.stats(name, spec)));
  }

  public Windowpane windowpane() {
    return windowpane;
  }

  /** Limiters by name, in the order configured. */
  public Map<String, RateLimiter> limiters() {
    return Collections.unmodifiableMap(limiters);
  }

  /** The limiter {@code name}. @throws IllegalArgumentException naming the configured ones */
  public RateLimiter limiter(String name) {
    return known("limiter", name, limiters);
  }

  /** Whether the limiter {@code name} is in shadow mode (decides and counts, never denies). */
  public boolean shadow(String name) {
    limiter(name);
    return shadow.contains(name);
  }

  public Map<String, WindowCounter> counters() {
    return Collections.unmodifiableMap(counters);
  }

  /** The counter {@code name}. @throws IllegalArgumentException naming the configured ones */
  public WindowCounter counter(String name) {
    return known("counter", name, counters);
  }

  public Map<String, WindowStats> stats() {
    return Collections.unmodifiableMap(stats);
  }

  /** The statistics window {@code name}. @throws IllegalArgumentException as above */
  public WindowStats stats(String name) {
    return known("stats", name, stats);
  }


  /**
   * What to take for {@code permits} from the limiters {@code names}: the limiter itself for one
   * name; for several, one quota of all their limits (named {@code a:b}, with its own windows),
   * so that they are decided in one atomic call.
   *
   * @throws IllegalArgumentException an unknown limiter, permits outside 1 to the smallest limit,
   *     a limiter named twice, or shadow and enforced limiters mixed
   */
  public Target target(List<String> names, long permits) {
    if (names.isEmpty()) {
      throw new IllegalArgumentException("limiters must name at least one limiter");
    }
    Set<String> seen = new HashSet<>();
    int shadowed = 0;
    for (String name : names) {
      limiter(name);
      if (!seen.add(name)) {
        throw new IllegalArgumentException("limiter " + name + " is named twice; name each"
            + " limiter once");
      }
      shadowed += shadow.contains(name) ? 1 : 0;
    }
    if (shadowed != 0 && shadowed != names.size()) {
      throw new IllegalArgumentException("limiters " + names + " mix shadow and enforced"
          + " limiters, which cannot form one all-or-nothing quota; put them on separate"
          + " methods or set the same shadow on all");
    }
    RateLimiter limiter = names.size() == 1 ? limiters.get(names.get(0))
        : combined.computeIfAbsent(List.copyOf(names), this::combine);
    long max = limiter.quota().smallestPermits();
    if (permits < 1 || permits > max) {
      throw new IllegalArgumentException("permits must be 1 to " + max + " (the smallest limit"
          + " of " + String.join(", ", names) + "), was " + permits);
    }
    return new Target(limiter.name(), limiter, permits, shadowed > 0);
  }

  private RateLimiter combine(List<String> names) {
    List<Limit> all = new ArrayList<>();
    Set<String> limitNames = new HashSet<>();
    for (String name : names) {
      for (Limit limit : limiters.get(name).quota().limits()) {
        all.add(limitNames.add(limit.name()) ? limit : limit.named(name + "/" + limit.name()));
      }
    }
    return windowpane.limiter(String.join(":", names), Quota.of(all));
  }

  private static <T> T known(String kind, String name, Map<String, T> all) {
    T t = all.get(name);
    if (t == null) {
      throw new IllegalArgumentException(kind + " must be one of the configured "
          + kind + (kind.equals("stats") ? "" : "s") + " " + all.keySet() + " (windowpane."
          + (kind.equals("stats") ? "stats" : kind + "s") + "), was '" + name + "'");
    }
    return t;
  }
}
