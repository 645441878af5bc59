package io.windowpane.config;

import io.windowpane.spi.EngineSettings;
import java.time.Duration;

/**
 * The {@code engine.redis.memoryGuard} block, validated; a null field was left out (the
 * engine's default applies): {@code enabled} (default true), {@code warnPercent} (70),
 * {@code pressurePercent} (85), {@code hysteresisPercent} (5), {@code budgetMb} (0: none; the
 * server's {@code maxmemory} takes precedence) and {@code checkInterval} (1s).
 */
record RedisMemoryGuard(Boolean enabled, Integer warnPercent, Integer pressurePercent,
    Integer hysteresisPercent, Integer budgetMb, Duration checkInterval) {

  static final RedisMemoryGuard DEFAULTS = new RedisMemoryGuard(null, null, null, null, null,
      null);

  static final String[] FIELDS = {"enabled", "warnPercent", "pressurePercent",
      "hysteresisPercent", "budgetMb", "checkInterval"};

  /** Reads the block from {@code m}, reporting problems (ranges and their order). */
  static RedisMemoryGuard read(YamlMap m, Problems problems) {
    Boolean enabled = m.has("enabled") ? m.bool("enabled", true) : null;
    Integer warn = m.has("warnPercent") ? (int) m.integer("warnPercent", 70, 1, 99) : null;
    Integer pressure = m.has("pressurePercent")
        ? (int) m.integer("pressurePercent", 85, 2, 100) : null;
    Integer hysteresis = m.has("hysteresisPercent")
        ? (int) m.integer("hysteresisPercent", 5, 0, 98) : null;
    Integer budget = m.has("budgetMb") ? (int) m.integer("budgetMb", 0, 0, 1 << 30) : null;
    Duration interval = m.has("checkInterval") ? m.duration("checkInterval",
        Duration.ofSeconds(1), Duration.ofMillis(10), Duration.ofMinutes(1)) : null;
    int w = warn == null ? 70 : warn;
    int p = pressure == null ? 85 : pressure;
    int h = hysteresis == null ? 5 : hysteresis;
    if (p <= w) {
      problems.at(m.node(), m.path() + ": pressurePercent (" + p + ") must be above"
          + " warnPercent (" + w + ")");
    } else if (h >= w) {
      problems.at(m.node(), m.path() + ": hysteresisPercent (" + h + ") must be below"
          + " warnPercent (" + w + ")");
    }
    return new RedisMemoryGuard(enabled, warn, pressure, hysteresis, budget, interval);
  }

  /** Puts the options given under the provider's names (memoryGuard, memoryWarnPercent, ...). */
  void putInto(EngineSettings.Builder s) {
    s.text("memoryGuard", enabled == null ? null : enabled ? "on" : "off")
        .integer("memoryWarnPercent", warnPercent)
        .integer("memoryPressurePercent", pressurePercent)
        .integer("memoryHysteresisPercent", hysteresisPercent)
        .integer("memoryBudgetMb", budgetMb)
        .duration("memoryCheckInterval", checkInterval);
  }
}
