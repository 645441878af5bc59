package io.windowpane.config;

import io.windowpane.Algorithm;
import io.windowpane.EventTime;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.spi.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * Reads the {@code limiters}, {@code counters} and {@code stats} sections into the core's specs.
 * The plain ranges (window length, panes, permits) are checked here so that problems read like
 * the file ({@code limiters.api[0].permits must be 1 to 1099511627775, was 0}); the rest is left
 * to the core factories, whose {@link IllegalArgumentException} is reported with the path and
 * the line of the value it concerns ({@code limiters.api[0]: panes must divide ...}). A spec is
 * only built from values that read without a problem.
 */
public final class WindowReader {

  private static final Duration MAX_WINDOW = Duration.ofMillis(WindowSpec.MAX_WINDOW_MILLIS);
  private static final int DEFAULT_PANES = 10;

  private final Problems problems;
  private final Set<String> shadow = new LinkedHashSet<>();

  public WindowReader(Problems problems) {
    this.problems = problems;
  }

  /**
   * {@code limiters}: name to a list of 1 to {@value Quota#MAX_LIMITS} limits, or to a mapping
   * {@code {limits: [...], shadow: true, leasing: {...}}}; the names of limiters in shadow mode
   * are added to {@link #shadowLimiters()}, and an enabled {@code leasing} block
   * ({@link LeasingReader}) turns leasing on in the limiter's quota.
   */
  public Map<String, Quota> limiters(YamlMap section) {
    Map<String, Quota> out = new LinkedHashMap<>();
    for (String name : section.keys()) {
      if (!validName(section, name)) {
        continue;
      }
      Node value = section.value(name);
      String path = section.path(name);
      YamlMap leasing = null;
      if (value instanceof MappingNode && mentionsLimitsOrShadow((MappingNode) value)) {
        YamlMap m = YamlMap.fields(value, path, problems, "limits", "shadow", "leasing");
        if (m.bool("shadow", false)) {
          shadow.add(name);
        }
        if (m.has("leasing")) {
          leasing = YamlMap.fields(m.value("leasing"), m.path("leasing"), problems,
              "enabled", "maxShare", "maxSlice", "logLifetime");
        }
        if (!m.has("limits")) {
          m.missing("limits", "[ { permits: 10, window: 1s } ]");
          continue;
        }
        value = m.value("limits");
        path = m.path("limits");
      }
      Quota quota = quota(value, path, section.keyNode(name));
      if (leasing != null && leasing.isMapping()) {
        quota = LeasingReader.apply(leasing, quota, problems);
      }
      put(out, name, quota);
    }
    return out;
  }

  /**
   * Whether a limiter's mapping is the {@code {limits, shadow, leasing}} form; any other mapping
   * is most likely one limit written without the list, and is reported as "must be a list".
   */
  private static boolean mentionsLimitsOrShadow(MappingNode node) {
    return node.getValue().stream().anyMatch(t -> t.getKeyNode() instanceof ScalarNode k
        && (k.getValue().equals("limits") || k.getValue().equals("shadow")
            || k.getValue().equals("leasing")));
  }

  /** The limiters read so far whose {@code shadow} is true: they decide but never deny. */
  public Set<String> shadowLimiters() {
    return Set.copyOf(shadow);
  }

  /** {@code counters}: name to a window. */
  public Map<String, WindowSpec> counters(YamlMap section) {
    Map<String, WindowSpec> out = new LinkedHashMap<>();
    for (String name : section.keys()) {
      if (validName(section, name)) {
        YamlMap m = YamlMap.fields(section.value(name), section.path(name), problems,
            "window", "algorithm", "panes", "eventTime", "adaptive");
        EventTime rules = m.isMapping() ? eventTime(m) : null;
        WindowSpec spec = m.isMapping() ? adaptive(m, window(m)) : null;
        put(out, name, spec == null || rules == null ? spec : spec.withEventTime(rules));
      }
    }
    return out;
  }

  /** {@code stats}: name to a statistics window. */
  public Map<String, StatsSpec> stats(YamlMap section) {
    Map<String, StatsSpec> out = new LinkedHashMap<>();
    for (String name : section.keys()) {
      if (validName(section, name)) {
        YamlMap m = YamlMap.fields(section.value(name), section.path(name), problems,
            "kind", "window", "panes", "accuracy", "trackedRange", "maxValues", "eventTime",
            "adaptive");
        EventTime rules = m.isMapping() ? eventTime(m) : null;
        int min = m.isMapping() ? minPanes(m) : 0;
        StatsSpec read = m.isMapping() ? StatsReader.read(m, this) : null;
        StatsSpec spec = read == null || min == 0 ? read : min < 0 ? null
            : core(m.value("adaptive"), m.path(), () -> read.withAdaptive(min));
        put(out, name, spec == null || rules == null ? spec : spec.withEventTime(rules));
      }
    }
    return out;
  }

  /**
   * A window's optional {@code eventTime: {maxAhead: 1s, late: refuse|drop}} (see
   * {@link EventTime}); null when absent or bad (reported).
   */
  EventTime eventTime(YamlMap m) {
    if (!m.has("eventTime")) {
      return null;
    }
    int before = problems.count();
    YamlMap e = YamlMap.fields(m.value("eventTime"), m.path("eventTime"), problems, "maxAhead",
        "late");
    if (!e.isMapping()) {
      return null;
    }
    Duration maxAhead = e.duration("maxAhead",
        Duration.ofMillis(EventTime.DEFAULT_MAX_AHEAD_MILLIS), Duration.ZERO,
        Duration.ofMillis(EventTime.MAX_AHEAD_MILLIS));
    String late = e.choice("late", "refuse", "refuse", "drop");
    if (problems.count() > before) {
      return null;
    }
    EventTime rules = EventTime.defaults().withMaxAhead(maxAhead);
    return "drop".equals(late) ? rules.droppingLate() : rules;
  }

  /**
   * A window's optional {@code adaptive: {minPanes: 15}} (see {@link WindowSpec#withAdaptive}):
   * minPanes; 0 when absent, -1 when bad (reported).
   */
  int minPanes(YamlMap m) {
    if (!m.has("adaptive")) {
      return 0;
    }
    int before = problems.count();
    YamlMap a = YamlMap.fields(m.value("adaptive"), m.path("adaptive"), problems, "minPanes");
    if (!a.isMapping()) {
      return -1;
    }
    if (!a.has("minPanes")) {
      a.missing("minPanes", "15");
      return -1;
    }
    int min = (int) a.integer("minPanes", 0, 1, WindowSpec.MAX_PANES);
    return problems.count() > before ? -1 : min;
  }

  /** {@code spec} with {@code m}'s {@code adaptive} option, if any; null when bad (reported). */
  private WindowSpec adaptive(YamlMap m, WindowSpec spec) {
    int min = minPanes(m);
    if (min < 0) {
      return null;
    }
    return spec == null || min == 0 ? spec
        : core(m.value("adaptive"), m.path(), () -> spec.withAdaptive(min));
  }

  private static <T> void put(Map<String, T> out, String name, T value) {
    if (value != null) {
      out.put(name, value);
    }
  }

  private boolean validName(YamlMap section, String name) {
    try {
      Checks.name(name);
      return true;
    } catch (IllegalArgumentException e) {
      // reported below, with the file's line
    }
    problems.at(section.keyNode(name), section.path() + ": the name '" + name + "' must be 1"
        + " to 64 characters of [A-Za-z0-9_.:-]");
    return false;
  }

  private Quota quota(Node node, String path, Node keyNode) {
    List<Node> items = Scalars.list(node, path, problems,
        "[ { permits: 10, window: 1s } ] or lines of '- permits: 10'");
    if (items == null) {
      return null;
    }
    if (items.isEmpty() || items.size() > Quota.MAX_LIMITS) {
      problems.at(node, path + " must hold 1 to " + Quota.MAX_LIMITS + " limits, was "
          + items.size());
      return null;
    }
    int before = problems.count();
    List<Limit> limits = new ArrayList<>();
    Map<String, Integer> names = new LinkedHashMap<>();
    for (int i = 0; i < items.size(); i++) {
      Limit limit = limit(items.get(i), path + "[" + i + "]");
      if (limit == null) {
        continue;
      }
      Integer other = names.putIfAbsent(limit.name(), i);
      if (other != null) {
        problems.at(items.get(i), path + "[" + i + "]: the limit name '" + limit.name()
            + "' is also the name of " + path + "[" + other + "]; give each limit its own name");
      }
      limits.add(limit);
    }
    return problems.count() > before ? null : core(keyNode, path, () -> Quota.of(limits));
  }

  private Limit limit(Node node, String path) {
    YamlMap m = YamlMap.fields(node, path, problems,
        "name", "permits", "window", "algorithm", "panes", "adaptive");
    if (!m.isMapping()) {
      return null;
    }
    int before = problems.count();
    WindowSpec window = adaptive(m, window(m));
    long permits = 0;
    if (!m.has("permits")) {
      m.missing("permits", "10");
    } else {
      permits = m.integer("permits", 0, 1, Limit.MAX_PERMITS);
      if (window != null && window.algorithm() == Algorithm.SLIDING_LOG
          && permits > Limit.MAX_LOG_PERMITS) {
        problems.at(m.value("permits"), m.path("permits") + " must be 1 to "
            + Limit.MAX_LOG_PERMITS + " with algorithm log (its memory grows with permits), was "
            + permits);
      }
    }
    String name = m.text("name", null);
    if (problems.count() > before) {
      return null;
    }
    long p = permits;
    Limit limit = core(m.value("permits"), path, () -> Limit.of(p, window));
    return limit == null || name == null ? limit : core(m.value("name"), path,
        () -> limit.named(name));
  }

  /** The window of a limit or counter: {@code window}, {@code algorithm}, {@code panes}. */
  WindowSpec window(YamlMap m) {
    int before = problems.count();
    String algorithm = m.has("algorithm") ? Scalars.choice(m.value("algorithm"),
        m.path("algorithm"), problems, "panes", "log", "weighted") : "panes";
    Duration length = length(m);
    if (algorithm != null && !algorithm.equals("panes") && m.has("panes")) {
      problems.at(m.keyNode("panes"), m.path("panes") + " applies to algorithm panes only;"
          + " remove it or set algorithm: panes");
    }
    int panes = panes(m);
    if (problems.count() > before) {
      return null;
    }
    Algorithm a = algorithm.equals("log") ? Algorithm.SLIDING_LOG
        : algorithm.equals("weighted") ? Algorithm.SLIDING_WEIGHTED : Algorithm.SLIDING_PANES;
    return core(m.has("panes") ? m.value("panes") : m.value("window"), m.path(),
        () -> WindowSpec.of(length, a == Algorithm.SLIDING_PANES ? panes : 1, a));
  }

  /** The required {@code window} length, 1 ms to 366 days; null (reported) if bad or absent. */
  Duration length(YamlMap m) {
    if (!m.has("window")) {
      m.missing("window", "1m");
      return null;
    }
    return m.duration("window", null, Duration.ofMillis(1), MAX_WINDOW);
  }

  /** {@code panes}, 1 to {@value WindowSpec#MAX_PANES}, default 10. */
  int panes(YamlMap m) {
    return (int) m.integer("panes", DEFAULT_PANES, 1, WindowSpec.MAX_PANES);
  }

  /**
   * {@code make()}, or null after reporting its {@link IllegalArgumentException} at
   * {@code blame}'s line as a problem of {@code path}.
   */
  <T> T core(Node blame, String path, Supplier<T> make) {
    try {
      return make.get();
    } catch (IllegalArgumentException e) {
      problems.at(blame, path + ": " + e.getMessage());
      return null;
    }
  }

  Problems problems() {
    return problems;
  }
}
