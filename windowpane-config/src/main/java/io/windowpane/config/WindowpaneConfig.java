package io.windowpane.config;

import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/*
 * Design note: the service reads its YAML file and the Spring Boot starter reads its
 * windowpane.* properties with the same readers (EngineReader, WindowReader, StatsReader), so a
 * value is valid in one exactly when it is valid in the other and both report it with the same
 * words. The starter has no YAML node tree of its own: it turns its properties into plain maps,
 * lists and strings, and tree() makes nodes of them (without lines, so problems read
 * "source: path problem"). Values are read from their text in both cases (Scalars), so a
 * property typed as a string and a YAML scalar behave alike.
 */

/**
 * The library part of a configuration: the engine, the limiters (with those in shadow mode),
 * counters and statistics windows. Read from a node tree whose top level holds {@code engine},
 * {@code limiters}, {@code counters} and {@code stats}, every problem named by its path under
 * {@code rootPath} ({@code windowpane.limiters.api.limits[0].permits must be 1 to ..., was 0}).
 * Immutable.
 */
public final class WindowpaneConfig {

  /** The keys of the top level this class reads. */
  public static final List<String> KEYS = List.of("engine", "limiters", "counters", "stats");

  private final EngineConfig engine;
  private final Map<String, Quota> limiters;
  private final Set<String> shadowLimiters;
  private final Map<String, WindowSpec> counters;
  private final Map<String, StatsSpec> stats;

  private WindowpaneConfig(EngineConfig engine, Map<String, Quota> limiters,
      Set<String> shadowLimiters, Map<String, WindowSpec> counters,
      Map<String, StatsSpec> stats) {
    this.engine = engine;
    this.limiters = Collections.unmodifiableMap(new LinkedHashMap<>(limiters));
    this.shadowLimiters = Set.copyOf(shadowLimiters);
    this.counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
    this.stats = Collections.unmodifiableMap(new LinkedHashMap<>(stats));
  }

  /**
   * Reads {@code root} (null: nothing configured, the local engine). Keys of the top level
   * other than {@link #KEYS} and {@code otherKeys} (which the caller reads itself) are
   * problems.
   *
   * @param source names the configuration in problems, e.g. {@code application properties}
   * @param rootPath the path of {@code root}, e.g. {@code windowpane}
   * @param env looks up {@code passwordEnv}
   * @throws ConfigException listing every problem
   */
  public static WindowpaneConfig read(Node root, String source, String rootPath,
      List<String> otherKeys, UnaryOperator<String> env) throws ConfigException {
    Problems problems = new Problems(source);
    List<String> allowed = new ArrayList<>(KEYS);
    allowed.addAll(otherKeys);
    YamlMap top = YamlMap.fields(root, rootPath, problems, allowed.toArray(new String[0]));
    EngineConfig engine = top.has("engine")
        ? EngineReader.read(top.value("engine"), top.path("engine"), problems, env)
        : EngineConfig.local();
    WindowReader windows = new WindowReader(problems);
    Map<String, Quota> limiters = top.has("limiters") ? windows.limiters(
        YamlMap.names(top.value("limiters"), top.path("limiters"), problems)) : Map.of();
    Map<String, WindowSpec> counters = top.has("counters") ? windows.counters(
        YamlMap.names(top.value("counters"), top.path("counters"), problems)) : Map.of();
    Map<String, StatsSpec> stats = top.has("stats") ? windows.stats(
        YamlMap.names(top.value("stats"), top.path("stats"), problems)) : Map.of();
    problems.throwIfAny();
    return new WindowpaneConfig(engine, limiters, windows.shadowLimiters(), counters, stats);
  }

  /**
   * A node tree of {@code value}: a {@link Map} becomes a mapping (its keys as text, in the
   * map's order), a {@link List} or array a sequence, null YAML null, anything else a plain
   * scalar of its {@code toString()}.
   */
  public static Node tree(Object value) {
    if (value == null) {
      return new ScalarNode(Tag.NULL, "", null, null, DumperOptions.ScalarStyle.PLAIN);
    }
    if (value instanceof Map<?, ?> map) {
      List<NodeTuple> tuples = new ArrayList<>();
      map.forEach((k, v) -> tuples.add(new NodeTuple(tree(String.valueOf(k)), tree(v))));
      return new MappingNode(Tag.MAP, tuples, DumperOptions.FlowStyle.BLOCK);
    }
    if (value instanceof Object[] array) {
      return tree(Arrays.asList(array));
    }
    if (value instanceof List<?> list) {
      List<Node> items = new ArrayList<>();
      list.forEach(v -> items.add(tree(v)));
      return new SequenceNode(Tag.SEQ, items, DumperOptions.FlowStyle.BLOCK);
    }
    return new ScalarNode(Tag.STR, value.toString(), null, null, DumperOptions.ScalarStyle.PLAIN);
  }

  public EngineConfig engine() {
    return engine;
  }

  /** Limiters by name, in the order configured. */
  public Map<String, Quota> limiters() {
    return limiters;
  }

  /** The names of the limiters in shadow mode: they decide and count but never deny. */
  public Set<String> shadowLimiters() {
    return shadowLimiters;
  }

  public Map<String, WindowSpec> counters() {
    return counters;
  }

  public Map<String, StatsSpec> stats() {
    return stats;
  }
}
