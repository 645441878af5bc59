package io.windowpane.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.windowpane.Algorithm;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.spi.Durations;
import java.util.Locale;

/** The JSON descriptions of what is configured, for {@code GET /v1/...}. */
final class Describe {

  private Describe() {}

  /**
   * A limiter: its limits, whether it is in shadow mode (decides, never denies), and with
   * leasing on its options ({@code leasing}: {@code maxShare}, {@code maxSlice},
   * {@code logLifetime}); the field is absent when leasing is off.
   */
  static ObjectNode limiter(String name, Quota quota, boolean shadow) {
    ObjectNode node = Json.object();
    node.put("name", name);
    ArrayNode limits = node.putArray("limits");
    for (Limit limit : quota.limits()) {
      ObjectNode l = limits.addObject();
      l.put("name", limit.name());
      l.put("permits", limit.permits());
      window(l, limit.window());
    }
    node.put("shadow", shadow);
    quota.leasing().ifPresent(leasing -> node.putObject("leasing")
        .put("maxShare", leasing.maxShare())
        .put("maxSlice", leasing.maxSlice())
        .put("logLifetime", Durations.format(leasing.logLifetimeMillis())));
    return node;
  }

  static ObjectNode counter(String name, WindowSpec spec) {
    ObjectNode node = Json.object();
    node.put("name", name);
    window(node, spec);
    return node;
  }

  static ObjectNode stats(String name, StatsSpec spec) {
    ObjectNode node = Json.object();
    node.put("name", name);
    node.put("kind", spec.isExact() ? "exact" : "histogram");
    WindowSpec window = spec.window();
    node.put("window", Durations.format(window.windowMillis()));
    node.put("windowMillis", window.windowMillis());
    if (spec.isExact()) {
      node.put("maxValues", spec.maxValues());
    } else {
      node.put("panes", window.panes());
      node.put("relativeAccuracy", spec.buckets().relativeAccuracy());
    }
    return node;
  }

  private static void window(ObjectNode node, WindowSpec spec) {
    node.put("window", Durations.format(spec.windowMillis()));
    node.put("windowMillis", spec.windowMillis());
    node.put("algorithm", algorithm(spec.algorithm()));
    if (spec.algorithm() == Algorithm.SLIDING_PANES) {
      node.put("panes", spec.panes());
    }
  }

  /** The configuration file's name of an algorithm: panes, log, weighted. */
  static String algorithm(Algorithm algorithm) {
    return algorithm.name().substring("SLIDING_".length()).toLowerCase(Locale.ROOT);
  }
}
