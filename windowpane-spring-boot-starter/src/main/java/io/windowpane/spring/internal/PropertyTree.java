package io.windowpane.spring.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/*
 * Design note: the starter does not bind the library's vocabulary (engine, limiters, counters,
 * stats) to Java beans; it hands the service's readers (windowpane-config) the same tree of
 * maps, lists and strings that the service's YAML file gives them, so both validate alike. This
 * class builds that tree from every property source in precedence order (the first value of a
 * name wins, as in Spring's own binding). Relaxed names are mapped back to the vocabulary:
 * max-keys, maxKeys and MAXKEYS (an environment variable) all become maxKeys; the names of
 * limiters, counters and statistics windows are kept as written. Indexes ([0]) make lists, and a
 * comma-separated value of a list key (chain, cluster, endpoints, trackedRange) is split.
 */

/** The {@code windowpane.*} properties of an {@link Environment} as a tree for the readers. */
public final class PropertyTree {

  /** Every key of the vocabulary, for mapping relaxed forms back to it. */
  private static final List<String> VOCABULARY = List.of("engine", "limiters", "counters",
      "stats", "type", "chain", "onFailure", "local", "maxKeys", "redis", "uri", "cluster",
      "username", "password", "passwordEnv", "database", "timeout", "connectTimeout", "scripts",
      "time", "etcd", "endpoints", "user", "namespace", "expiryGrace", "conflictRetries",
      "backoffBase", "backoffMax", "maxValueBytes", "maxTxnOps", "cachedCounts", "failover",
      "probeInterval", "probeTimeout", "probeFailuresToTrip", "callTimeout", "failuresToTrip",
      "latencyThreshold", "latencyWindow", "slowWindowsToTrip", "probesToRecover",
      "probesToRecoverAfterDouble", "fleetNodes", "fleetShare", "journalLimit", "members", "limits",
      "shadow", "leasing", "enabled", "maxShare", "maxSlice", "logLifetime", "name", "permits",
      "window", "algorithm", "panes", "kind", "accuracy", "trackedRange", "maxValues",
      "eventTime", "maxAhead", "late", "adaptive", "minPanes",
      "memoryGuard", "warnPercent", "pressurePercent", "hysteresisPercent", "budgetMb",
      "checkInterval");
  private static final Set<String> LIST_KEYS = Set.of("chain", "cluster", "endpoints",
      "trackedRange");
  private static final Set<String> NAMED_SECTIONS = Set.of("limiters", "counters", "stats");
  private static final Map<String, String> BY_UNIFORM = new LinkedHashMap<>();

  static {
    for (String key : VOCABULARY) {
      BY_UNIFORM.put(uniform(key), key);
    }
  }

  private PropertyTree() {}

  /**
   * The tree under {@code prefix} without the top-level keys {@code skip} (read elsewhere), or
   * an empty map.
   */
  public static Map<String, Object> read(Environment environment, String prefix,
      Set<String> skip) {
    ConfigurationPropertyName root = ConfigurationPropertyName.of(prefix);
    Set<ConfigurationPropertyName> seen = new HashSet<>();
    Map<String, Object> tree = new LinkedHashMap<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (!(source instanceof IterableConfigurationPropertySource iterable)) {
        continue;
      }
      iterable.filter(root::isAncestorOf).forEach(name -> {
        if (!seen.add(name)) {
          return; // a source of higher precedence gave it
        }
        ConfigurationProperty property = source.getConfigurationProperty(name);
        if (property == null || property.getValue() == null) {
          return;
        }
        List<Object> path = path(name, root.getNumberOfElements());
        if (!path.isEmpty() && !skip.contains(path.get(0))) {
          put(tree, path, 0, property.getValue().toString());
        }
      });
    }
    return listsFromIndexes(tree);
  }

  /** Elements after the prefix: a vocabulary key, a name, or an index (Integer). */
  private static List<Object> path(ConfigurationPropertyName name, int skip) {
    List<Object> path = new ArrayList<>();
    String parent = null;
    for (int i = skip; i < name.getNumberOfElements(); i++) {
      if (name.isNumericIndex(i)) {
        path.add(Integer.valueOf(name.getElement(i, Form.UNIFORM)));
        continue;
      }
      String original = name.getElement(i, Form.ORIGINAL);
      boolean isName = parent != null && NAMED_SECTIONS.contains(parent) && path.size() == 1;
      String key = isName ? original
          : BY_UNIFORM.getOrDefault(uniform(original), original);
      path.add(key);
      parent = path.size() == 1 ? key : parent;
    }
    return path;
  }

  @SuppressWarnings("unchecked")
  private static void put(Map<String, Object> node, List<Object> path, int at, String value) {
    String key = String.valueOf(path.get(at));
    if (at == path.size() - 1) {
      node.putIfAbsent(key, value);
      return;
    }
    Object child = node.get(key);
    if (!(child instanceof Map)) {
      child = new LinkedHashMap<String, Object>();
      node.put(key, child);
    }
    put((Map<String, Object>) child, path, at + 1, value);
  }

  /** Maps whose keys are all indexes become lists in index order; list keys split on commas. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> listsFromIndexes(Map<String, Object> node) {
    Map<String, Object> out = new LinkedHashMap<>();
    node.forEach((key, value) -> out.put(key, convert(key, value)));
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Object convert(String key, Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> m = (Map<String, Object>) map;
      boolean indexes = !m.isEmpty() && m.keySet().stream().allMatch(k -> k.matches("[0-9]+"));
      if (indexes) {
        Map<Integer, Object> sorted = new TreeMap<>();
        m.forEach((k, v) -> sorted.put(Integer.valueOf(k), convert(k, v)));
        return new ArrayList<>(sorted.values());
      }
      return listsFromIndexes(m);
    }
    if (LIST_KEYS.contains(key) && value instanceof String s) {
      List<Object> items = new ArrayList<>();
      for (String item : s.split(",")) {
        items.add(item.trim());
      }
      return items;
    }
    return value;
  }

  private static String uniform(String key) {
    return key.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }
}
