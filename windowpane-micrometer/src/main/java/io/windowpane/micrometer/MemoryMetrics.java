package io.windowpane.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.windowpane.MemoryStatus;
import io.windowpane.Windowpane;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The memory guard's meters, the same in the service and the starter, bound when the engine has
 * a guard (the Redis engine, or a chain with a Redis member connected at start):
 * {@code windowpane.redis.memory.level} (0 normal, 1 warn, 2 pressure, -1 unknown: Redis refuses
 * {@code INFO}, e.g. to an ACL user without {@code +info}),
 * {@code windowpane.redis.memory.used} and {@code .limit} (bytes; limit 0: none),
 * {@code windowpane.redis.memory.usage} (used / limit), and the counters
 * {@code windowpane.redis.memory.refused.creations} (writes refused because they would have
 * created a key under pressure), {@code .evicted.keys} (keys Redis evicted) and
 * {@code .oom.errors} (calls Redis answered {@code OOM}). Each meter reads
 * {@link Windowpane#memoryStatus()} when scraped: the guard's last reading, no I/O.
 */
public final class MemoryMetrics {

  private MemoryMetrics() {}

  /**
   * The guard's last reading as the health reports show it, the same in the service's
   * {@code /health} and the starter's health indicator: {@code level} (normal, warn, pressure;
   * unknown where Redis refuses {@code INFO}),
   * {@code usage} (3 decimals), {@code usedBytes}, {@code limitBytes}, {@code evictionPolicy},
   * {@code refusedCreations}, {@code evictedKeys}, {@code oomErrors}. Informational: pressure
   * leaves a health status as it is (existing keys keep working).
   */
  public static Map<String, Object> healthDetail(MemoryStatus m) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("level", m.level().name().toLowerCase(Locale.ROOT));
    out.put("usage", Math.round(m.usage() * 1000) / 1000.0);
    out.put("usedBytes", m.usedBytes());
    out.put("limitBytes", m.limitBytes());
    out.put("evictionPolicy", m.evictionPolicy());
    out.put("refusedCreations", m.refusedCreations());
    out.put("evictedKeys", m.evictedKeys());
    out.put("oomErrors", m.outOfMemoryErrors());
    return out;
  }

  /** Binds the meters when {@code windowpane}'s engine has a memory guard; answers whether. */
  public static boolean bind(MeterRegistry registry, Windowpane windowpane) {
    if (windowpane.memoryStatus().isEmpty()) {
      return false;
    }
    gauge(registry, windowpane, "level", "Memory guard level: 0 normal, 1 warn, 2 pressure,"
        + " -1 unknown (INFO refused)", null, MemoryMetrics::level);
    gauge(registry, windowpane, "used", "Redis used_memory", "bytes", MemoryStatus::usedBytes);
    gauge(registry, windowpane, "limit", "maxmemory, or the configured budget; 0: none", "bytes",
        MemoryStatus::limitBytes);
    gauge(registry, windowpane, "usage", "used / limit (0 without a limit)", null,
        MemoryStatus::usage);
    counter(registry, windowpane, "refused.creations", "Writes refused because they would have"
        + " created a key under memory pressure", MemoryStatus::refusedCreations);
    counter(registry, windowpane, "evicted.keys", "Keys Redis evicted (windows forgotten)",
        MemoryStatus::evictedKeys);
    counter(registry, windowpane, "oom.errors", "Calls Redis refused with OOM",
        MemoryStatus::outOfMemoryErrors);
    return true;
  }

  /** The level gauge's value: the level's order, -1 for unknown. */
  static double level(MemoryStatus s) {
    return s.level() == MemoryStatus.Level.UNKNOWN ? -1 : s.level().ordinal();
  }

  private static void gauge(MeterRegistry registry, Windowpane wp, String name,
      String description, String unit, ToDoubleFunction<MemoryStatus> value) {
    Gauge.builder("windowpane.redis.memory." + name, wp,
            w -> w.memoryStatus().map(value::applyAsDouble).orElse(Double.NaN))
        .description(description)
        .baseUnit(unit)
        .strongReference(true)
        .register(registry);
  }

  private static void counter(MeterRegistry registry, Windowpane wp, String name,
      String description, ToDoubleFunction<MemoryStatus> count) {
    FunctionCounter.builder("windowpane.redis.memory." + name, wp,
            w -> w.memoryStatus().map(count::applyAsDouble).orElse(0.0))
        .description(description)
        .register(registry);
  }
}
