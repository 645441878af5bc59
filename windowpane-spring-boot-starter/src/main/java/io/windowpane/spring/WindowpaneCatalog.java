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
 *
 * <p>Limits changed at run time: {@link #reconfigure} changes one limiter's permits, and
 * {@link #apply} applies the limiters of properties read again (what the starter does on Spring
 * Cloud's {@code EnvironmentChangeEvent}, and {@link WindowpaneRefresher#refresh()} on demand).
 * Every key keeps its counts: the new permits apply from the next decision (see
 * {@link Windowpane#reconfigure}). Only permits (and limit names) change at run time; anything
 * else takes a restart.
 */
public final class WindowpaneCatalog {

  private final Windowpane windowpane;
  private final Map<String, RateLimiter> limiters = new LinkedHashMap<>();
  private final Set<String> shadow;
  private final Map<String, WindowCounter> counters = new LinkedHashMap<>();
  private final Map<String, WindowStats> stats = new LinkedHashMap<>();
  private final Map<List<String>, RateLimiter> combined = new ConcurrentHashMap<>();
  /** The most permits an annotation or path rule takes at once, per limiter name. */
  private final Map<String, Long> permitsInUse = new ConcurrentHashMap<>();

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
    synchronized (this) { // a reconfiguration checks the permits in use against its quota
      RateLimiter limiter = names.size() == 1 ? limiters.get(names.get(0))
          : combined.computeIfAbsent(List.copyOf(names), this::combine);
      long max = limiter.quota().smallestPermits();
      if (permits < 1 || permits > max) {
        throw new IllegalArgumentException("permits must be 1 to " + max + " (the smallest"
            + " limit of " + String.join(", ", names) + "), was " + permits);
      }
      for (String name : names) {
        permitsInUse.merge(name, permits, Math::max);
      }
      return new Target(limiter.name(), limiter, permits, shadowed > 0);
    }
  }

  private RateLimiter combine(List<String> names) {
    return windowpane.limiter(String.join(":", names), combinedQuota(names));
  }

  /** One quota of every limit of the limiters {@code names}, in order. */
  private Quota combinedQuota(List<String> names) {
    List<Limit> all = new ArrayList<>();
    Set<String> limitNames = new HashSet<>();
    for (String name : names) {
      for (Limit limit : limiters.get(name).quota().limits()) {
        all.add(limitNames.add(limit.name()) ? limit : limit.named(name + "/" + limit.name()));
      }
    }
    return Quota.of(all);
  }

  /**
   * Changes the permits of the limiter {@code name} while the application runs (see
   * {@link Windowpane#reconfigure} for what may change and what happens to the counts), and of
   * the combined quotas of several {@code @RateLimited} annotations that include it.
   *
   * @return the limiter, now over {@code quota}
   * @throws IllegalArgumentException for an unknown limiter, a change beyond permits and names,
   *     or a smallest limit below the permits an annotation or path rule takes from the
   *     limiter; nothing changes
   */
  public synchronized RateLimiter reconfigure(String name, Quota quota) {
    RateLimiter limiter = limiter(name);
    long inUse = permitsInUse.getOrDefault(name, 0L);
    if (quota != null && quota.smallestPermits() < inUse) {
      throw new IllegalArgumentException("windowpane.limiters." + name + ": the smallest limit"
          + " must stay at least " + inUse + ", the permits an annotation or path rule takes"
          + " from it at once; was " + quota.smallestPermits());
    }
    windowpane.reconfigure(name, quota);
    combined.forEach((names, together) -> {
      if (names.contains(name)) {
        windowpane.reconfigure(together.name(), combinedQuota(names));
      }
    });
    return limiter;
  }

  /**
   * What {@link #apply} did: the limiters whose permits changed, and each change it could not
   * make (a limiter added or removed, a window changed, a counter or statistics window
   * changed, an invalid value), which keep what is in force until a restart.
   */
  public record Applied(List<String> reconfigured, List<String> notApplied) {
    public Applied {
      reconfigured = List.copyOf(reconfigured);
      notApplied = List.copyOf(notApplied);
    }
  }

  /**
   * Applies {@code config}, the {@code windowpane.*} properties read again: every limiter whose
   * quota changed in permits only is {@link #reconfigure reconfigured}; unchanged limiters are
   * left alone; every other change is reported in {@link Applied#notApplied()} and nothing is
   * done about it (a limiter keeps the limits in force).
   */
  public synchronized Applied apply(WindowpaneConfig config) {
    List<String> reconfigured = new ArrayList<>();
    List<String> notApplied = new ArrayList<>();
    config.limiters().forEach((name, quota) -> {
      RateLimiter limiter = limiters.get(name);
      if (limiter == null) {
        notApplied.add("windowpane.limiters." + name + " is new: a new limiter takes a restart");
      } else if (!limiter.quota().equals(quota)) {
        try {
          reconfigure(name, quota);
          reconfigured.add(name);
        } catch (IllegalArgumentException e) {
          notApplied.add(e.getMessage());
        }
      }
    });
    for (String name : limiters.keySet()) {
      if (!config.limiters().containsKey(name)) {
        notApplied.add("windowpane.limiters." + name + " was removed: it stays until a"
            + " restart");
      }
    }
    if (!Set.copyOf(config.shadowLimiters()).equals(shadow)) {
      notApplied.add("windowpane.limiters.*.shadow changed: shadow mode changes at a restart");
    }
    Map<String, Object> counterSpecs = new LinkedHashMap<>();
    counters.forEach((name, c) -> counterSpecs.put(name, c.spec()));
    if (!counterSpecs.equals(new LinkedHashMap<>(config.counters()))) {
      notApplied.add("windowpane.counters changed: counters change at a restart");
    }
    Map<String, Object> statsSpecs = new LinkedHashMap<>();
    stats.forEach((name, w) -> statsSpecs.put(name, w.spec()));
    if (!statsSpecs.equals(new LinkedHashMap<>(config.stats()))) {
      notApplied.add("windowpane.stats changed: statistics windows change at a restart");
    }
    return new Applied(reconfigured, notApplied);
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
