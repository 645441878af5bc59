package io.windowpane.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

/*
 * Design note: SnakeYAML's compose step keeps every mapping entry, duplicates included, with the
 * line of each key and value; its constructor would drop duplicates and lines. So the reader
 * works on nodes, and this class is the one place that turns a MappingNode into keyed access:
 * it reports duplicate keys (at the second one, naming the first's line) and, for a mapping with
 * a fixed set of keys, every key outside that set, with the path and the allowed keys. Values
 * are read through Scalars, which report at the value's own line.
 */

/**
 * A YAML mapping read for the configuration: its entries by key in file order, with the path
 * ({@code limiters.api[0]}) used in every problem reported about it. Absent keys read as the
 * given default; a badly typed value is reported and reads as the default too, so the reader
 * carries on and collects the file's other problems.
 */
public final class YamlMap {

  private final Node node;
  private final String path;
  private final Problems problems;
  private final Map<String, NodeTuple> entries = new LinkedHashMap<>();
  private boolean mapping = true;

  private YamlMap(Node node, String path, Problems problems) {
    this.node = node;
    this.path = path;
    this.problems = problems;
  }

  /**
   * The mapping {@code node} at {@code path}, whose keys must be among {@code allowed}; an empty
   * value ({@code server:} alone) reads as an empty mapping. Reports and returns an empty
   * mapping when {@code node} is not a mapping.
   */
  public static YamlMap fields(Node node, String path, Problems problems, String... allowed) {
    YamlMap map = names(node, path, problems);
    List<String> known = Arrays.asList(allowed);
    map.entries.entrySet().removeIf(e -> {
      if (known.contains(e.getKey())) {
        return false;
      }
      problems.at(e.getValue().getKeyNode(), map.path(e.getKey()) + ": unknown key; "
          + (path.isEmpty() ? "the top level" : path) + " takes " + String.join(", ", allowed));
      return true;
    });
    return map;
  }

  /** The mapping {@code node} at {@code path} whose keys are names (limiters, counters...). */
  public static YamlMap names(Node node, String path, Problems problems) {
    YamlMap map = new YamlMap(node, path, problems);
    if (Scalars.isNull(node)) {
      return map;
    }
    if (!(node instanceof MappingNode)) {
      problems.at(node, (path.isEmpty() ? "the top level" : path)
          + " must be a mapping (key: value lines), was " + Scalars.describe(node));
      map.mapping = false;
      return map;
    }
    for (NodeTuple tuple : ((MappingNode) node).getValue()) {
      Node keyNode = tuple.getKeyNode();
      if (!(keyNode instanceof ScalarNode) || Scalars.isNull(keyNode)) {
        problems.at(keyNode, (path.isEmpty() ? "the top level" : path)
            + ": keys must be plain names, was " + Scalars.describe(keyNode));
        continue;
      }
      String key = ((ScalarNode) keyNode).getValue();
      NodeTuple first = map.entries.putIfAbsent(key, tuple);
      if (first != null) {
        problems.at(keyNode, map.path(key) + " is given twice (first at line "
            + Problems.line(first.getKeyNode()) + ")");
      }
    }
    return map;
  }

  /** The path of this mapping's {@code key}. */
  public String path(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /** This mapping's path. */
  public String path() {
    return path;
  }

  /** The mapping node itself (for problems about a missing key). */
  public Node node() {
    return node;
  }

  /** The keys, in file order (duplicates and unknown keys left out). */
  public Iterable<String> keys() {
    return entries.keySet();
  }

  /** False when the value was not a mapping at all (reported): read nothing from it. */
  public boolean isMapping() {
    return mapping;
  }

  public boolean has(String key) {
    return entries.containsKey(key);
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The value node of {@code key}, or null when absent. */
  public Node value(String key) {
    NodeTuple t = entries.get(key);
    return t == null ? null : t.getValueNode();
  }

  /** The key node of {@code key}, or null when absent. */
  public Node keyNode(String key) {
    NodeTuple t = entries.get(key);
    return t == null ? null : t.getKeyNode();
  }

  /** Reports that {@code key} is missing, at the line where this mapping starts. */
  public void missing(String key, String example) {
    problems.at(node, path(key) + " is required, e.g. " + key + ": " + example);
  }

  /** The text of {@code key}, or {@code otherwise} when absent or not text. */
  public String text(String key, String otherwise) {
    String v = has(key) ? Scalars.text(value(key), path(key), problems) : null;
    return v == null ? otherwise : v;
  }

  /** The integer {@code key} in {@code [min, max]}, or {@code otherwise}. */
  public long integer(String key, long otherwise, long min, long max) {
    Long v = has(key) ? Scalars.integer(value(key), path(key), min, max, problems) : null;
    return v == null ? otherwise : v;
  }

  /** The duration {@code key} in {@code [min, max]}, or {@code otherwise}. */
  public Duration duration(String key, Duration otherwise, Duration min, Duration max) {
    Duration v = has(key) ? Scalars.duration(value(key), path(key), min, max, problems) : null;
    return v == null ? otherwise : v;
  }

  /** The boolean {@code key} ({@code true} or {@code false}), or {@code otherwise}. */
  public boolean bool(String key, boolean otherwise) {
    String v = has(key) ? Scalars.choice(value(key), path(key), problems, "true", "false")
        : null;
    return v == null ? otherwise : v.equals("true");
  }

  /** The value of {@code key}, one of {@code allowed}, or {@code otherwise}. */
  public String choice(String key, String otherwise, String... allowed) {
    String v = has(key) ? Scalars.choice(value(key), path(key), problems, allowed) : null;
    return v == null ? otherwise : v;
  }
}
