package io.windowpane.spring.internal;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.RateLimiter;
import io.windowpane.Summary;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.spring.WindowpaneCatalog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * {@code /actuator/windowpane}: the engine, the limiters (with their limits, shadow mode and
 * leasing options), counters and statistics windows; {@code /actuator/windowpane/{name}?key=k}:
 * the live count of key {@code k} in the counter or statistics window {@code name}, or for a
 * limiter what a one-permit acquire would answer now ({@link RateLimiter#peek(String)}: allowed,
 * remaining, deniedBy, retryAfterMillis), read without recording anything; {@code peek} is null
 * where the engine cannot answer without recording (Redis and etcd for now). An unknown name
 * answers 404.
 */
@Endpoint(id = "windowpane")
public final class WindowpaneEndpoint {

  private final WindowpaneCatalog catalog;

  public WindowpaneEndpoint(WindowpaneCatalog catalog) {
    this.catalog = catalog;
  }

  @ReadOperation
  public Map<String, Object> describe() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("engine", catalog.windowpane().engineName());
    List<Object> limiters = new ArrayList<>();
    catalog.limiters().forEach((name, limiter) -> limiters.add(limiter(name, limiter)));
    out.put("limiters", limiters);
    List<Object> counters = new ArrayList<>();
    catalog.counters().forEach((name, c) -> counters.add(window(name, c.spec())));
    out.put("counters", counters);
    List<Object> stats = new ArrayList<>();
    catalog.stats().forEach((name, s) -> {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", name);
      m.put("kind", s.spec().isExact() ? "exact" : "histogram");
      m.put("windowMillis", s.spec().window().windowMillis());
      stats.add(m);
    });
    out.put("stats", stats);
    return out;
  }

  @ReadOperation
  public Map<String, Object> key(@Selector String name, String key) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", name);
    out.put("key", key);
    WindowCounter counter = catalog.counters().get(name);
    WindowStats stats = catalog.stats().get(name);
    RateLimiter limiter = catalog.limiters().get(name);
    if (counter != null) {
      out.put("kind", "counter");
      out.put("count", counter.count(key));
    } else if (stats != null) {
      Summary s = stats.summary(key);
      out.put("kind", "stats");
      out.put("count", s.count());
      out.put("sum", s.sum());
    } else if (limiter != null) {
      out.put("kind", "limiter");
      out.put("shadow", catalog.shadow(name));
      out.put("holdsState", limiter.holdsState(key));
      out.put("peek", limiter.peek(key).map(WindowpaneEndpoint::decision).orElse(null));
    } else {
      return null; // Actuator answers 404
    }
    return out;
  }

  /** What {@code tryAcquire(key, 1)} would answer now, without taking anything. */
  private static Map<String, Object> decision(Decision d) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("allowed", d.allowed());
    m.put("remaining", d.remaining());
    m.put("deniedBy", d.deniedBy().map(Limit::name).orElse(null));
    m.put("retryAfterMillis", d.retryAfterMillis());
    return m;
  }

  private Map<String, Object> limiter(String name, RateLimiter limiter) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("shadow", catalog.shadow(name));
    List<Object> limits = new ArrayList<>();
    for (Limit limit : limiter.quota().limits()) {
      Map<String, Object> l = window(limit.name(), limit.window());
      l.put("permits", limit.permits());
      limits.add(l);
    }
    m.put("limits", limits);
    limiter.quota().leasing().ifPresent(leasing -> m.put("leasing", Map.of(
        "maxShare", leasing.maxShare(), "maxSlice", leasing.maxSlice(),
        "logLifetimeMillis", leasing.logLifetimeMillis())));
    return m;
  }

  private static Map<String, Object> window(String name, WindowSpec spec) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("windowMillis", spec.windowMillis());
    m.put("algorithm", spec.algorithm().name());
    return m;
  }
}
