package io.windowpane.spring.internal;

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
 * the live count of key {@code k} in the counter or statistics window {@code name}. A limiter's
 * live usage cannot be read without taking permits (the library has no read-only limiter call),
 * so for a limiter the second form reports only whether it holds state for the key.
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
      out.put("holdsState", limiter.holdsState(key));
    } else {
      throw new IllegalArgumentException("name must be a configured limiter, counter or stats"
          + " window, was '" + name + "'");
    }
    return out;
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
