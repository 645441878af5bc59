package io.windowpane.server.internal.rls;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.Unit;
import io.windowpane.Algorithm;
import io.windowpane.Windowpane;
import io.windowpane.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/*
 * Design note. The configuration format is envoyproxy/ratelimit's: one domain per file, a tree
 * of descriptors (key, optional value, optional rate_limit, nested descriptors). A file written
 * for that service loads unchanged; windowpane adds one optional field, rate_limit.algorithm
 * (panes, log or weighted), and refuses the two fields whose meaning it does not implement
 * (quota_mode, metadata) with an error naming them, rather than silently ignoring them.
 *
 * Loading is strict in the same places as the reference (unknown keys, empty domain or key,
 * duplicate domain or composite key, a unit with unlimited, a bad unit, an empty or
 * self-naming replaces entry, share_threshold without a wildcard) and reports the first problem
 * with the file and the path inside it. Unknown keys are checked per level (a `unit` at the
 * descriptor level is refused), where the reference checks them against one global list.
 */

/** The loaded rules: each domain's descriptor tree. Immutable after {@link #bind}. */
public final class RlsConfig {

  private static final Set<String> TOP = Set.of("domain", "descriptors");
  private static final Set<String> DESCRIPTOR = Set.of("key", "value", "rate_limit",
      "shadow_mode", "detailed_metric", "value_to_metric", "share_threshold", "descriptors",
      "quota_mode", "metadata");
  private static final Set<String> RATE_LIMIT = Set.of("unit", "requests_per_unit", "unlimited",
      "name", "replaces", "algorithm");
  private static final long MAX_REQUESTS_PER_UNIT = 0xFFFF_FFFFL; // uint32

  private final Map<String, RlsNode> domains = new LinkedHashMap<>();
  private final List<RlsRule> rules = new ArrayList<>();

  private RlsConfig() {}

  /**
   * Reads {@code path}: one YAML file, or every {@code .yaml} and {@code .yml} file under a
   * directory (recursively, in name order, names starting with a dot skipped), as
   * envoyproxy/ratelimit reads its runtime directory. Two files may not name the same domain.
   *
   * @throws ConfigException naming the file and the field of the first problem
   */
  public static RlsConfig load(Path path) throws ConfigException {
    RlsConfig config = new RlsConfig();
    List<Path> files = files(path);
    for (Path file : files) {
      String text;
      try {
        text = Files.readString(file, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new ConfigException(file.toString(), "cannot read the rate limit file: " + e);
      }
      config.add(text, file.toString());
    }
    return config;
  }

  /** The files {@link #load} reads under {@code path}, in the order it reads them. */
  public static List<Path> files(Path path) throws ConfigException {
    List<Path> files = new ArrayList<>();
    if (Files.isDirectory(path)) {
      try (Stream<Path> all = Files.walk(path)) {
        all.filter(Files::isRegularFile)
            .filter(p -> !p.getFileName().toString().startsWith("."))
            .filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
            .sorted()
            .forEach(files::add);
      } catch (IOException | java.io.UncheckedIOException e) {
        throw new ConfigException(path.toString(), "cannot read the rate limit directory: " + e);
      }
    } else if (Files.isRegularFile(path)) {
      files.add(path);
    } else {
      throw new ConfigException(path.toString(),
          "rate limit configuration: no such file or directory");
    }
    return files;
  }

  /** Parses one file's {@code yaml}, named {@code source} in problems (tests). */
  public static RlsConfig parse(String yaml, String source) throws ConfigException {
    RlsConfig config = new RlsConfig();
    config.add(yaml, source);
    return config;
  }

  /** Builds every rule's limiter on {@code wp}. */
  public RlsConfig bind(Windowpane wp) {
    rules.forEach(rule -> rule.bind(wp));
    return this;
  }

  /** The domains, in load order. */
  public Set<String> domains() {
    return domains.keySet();
  }

  /** Every rule, in load order. */
  List<RlsRule> rules() {
    return rules;
  }

  /** The root of {@code domain}'s tree, or null. */
  RlsNode domain(String domain) {
    return domains.get(domain);
  }

  private void add(String yaml, String file) throws ConfigException {
    Object root;
    try {
      root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
    } catch (YAMLException e) {
      throw new ConfigException(file, "not valid YAML: " + e.getMessage());
    }
    Map<String, Object> top = map(root, "the file", file);
    keys(top, TOP, "", file);
    Object domainValue = top.get("domain");
    String domain = domainValue == null ? "" : scalar(domainValue, "domain", file);
    if (domain.isEmpty()) {
      throw new ConfigException(file, "domain must not be empty");
    }
    if (domains.containsKey(domain)) {
      throw new ConfigException(file, "duplicate domain '" + domain + "' (another file names it)");
    }
    RlsNode node = new RlsNode(null, false, false);
    descriptors(node, top.get("descriptors"), "descriptors", domain, domain, file);
    domains.put(domain, node);
  }

  private void descriptors(RlsNode parent, Object list, String at, String domain,
      String parentPath, String file) throws ConfigException {
    if (list == null) {
      return;
    }
    if (!(list instanceof List)) {
      throw new ConfigException(file, at + " must be a list of descriptors");
    }
    List<?> items = (List<?>) list;
    for (int i = 0; i < items.size(); i++) {
      String here = at + "[" + i + "]";
      Map<String, Object> d = map(items.get(i), here, file);
      keys(d, DESCRIPTOR, here + ".", file);
      for (String refused : List.of("quota_mode", "metadata")) {
        if (d.containsKey(refused)) {
          throw new ConfigException(file, here + "." + refused + " is not supported by"
              + " windowpane (see docs/envoy.md); remove it");
        }
      }
      String key = d.get("key") == null ? "" : scalar(d.get("key"), here + ".key", file);
      if (key.isEmpty()) {
        throw new ConfigException(file, here + ".key must not be empty");
      }
      String value = d.get("value") == null ? "" : scalar(d.get("value"), here + ".value", file);
      String composite = value.isEmpty() ? key : key + "_" + value;
      String path = parentPath + "." + composite;
      if (parent.children.containsKey(composite)) {
        throw new ConfigException(file, here + ": duplicate descriptor composite key '"
            + path + "'");
      }
      boolean share = bool(d, "share_threshold", here, file);
      if (share && !value.contains("*")) {
        throw new ConfigException(file, here + ".share_threshold needs a wildcard value"
            + " (one holding '*'), was '" + value + "'");
      }
      boolean shadow = bool(d, "shadow_mode", here, file);
      boolean detailed = bool(d, "detailed_metric", here, file);
      RlsRule rule = d.get("rate_limit") == null ? null
          : rule(map(d.get("rate_limit"), here + ".rate_limit", file), here + ".rate_limit",
              domain, path, shadow, detailed, file);
      RlsNode node = new RlsNode(rule, bool(d, "value_to_metric", here, file), share);
      if (value.contains("*")) {
        parent.wildcards.add(new RlsNode.Wildcard(key, value, value.split("\\*", -1)));
      }
      descriptors(node, d.get("descriptors"), here + ".descriptors", domain, path, file);
      parent.children.put(composite, node);
    }
  }

  private RlsRule rule(Map<String, Object> m, String at, String domain, String path,
      boolean shadow, boolean detailed, String file) throws ConfigException {
    keys(m, RATE_LIMIT, at + ".", file);
    boolean unlimited = bool(m, "unlimited", at, file);
    String unitText = m.get("unit") == null ? "" : scalar(m.get("unit"), at + ".unit", file);
    Unit unit = null;
    for (Unit u : Unit.values()) {
      if (u != Unit.UNKNOWN && u != Unit.UNRECOGNIZED && u.name().equalsIgnoreCase(unitText)) {
        unit = u;
      }
    }
    if (unlimited && unit != null) {
      throw new ConfigException(file, at + ".unit must not be given when unlimited is true");
    }
    if (!unlimited && unit == null) {
      throw new ConfigException(file, at + ".unit must be second, minute, hour, day, week,"
          + " month or year, was '" + unitText + "'");
    }
    long requests = 0;
    if (m.get("requests_per_unit") != null) {
      Object n = m.get("requests_per_unit");
      if (!(n instanceof Integer || n instanceof Long)
          || ((Number) n).longValue() < 0 || ((Number) n).longValue() > MAX_REQUESTS_PER_UNIT) {
        throw new ConfigException(file, at + ".requests_per_unit must be an integer from 0 to "
            + MAX_REQUESTS_PER_UNIT + ", was '" + n + "'");
      }
      requests = ((Number) n).longValue();
    }
    String name = m.get("name") == null ? "" : scalar(m.get("name"), at + ".name", file);
    List<String> replaces = new ArrayList<>();
    if (m.get("replaces") != null) {
      if (!(m.get("replaces") instanceof List)) {
        throw new ConfigException(file, at + ".replaces must be a list of {name: ...}");
      }
      List<?> items = (List<?>) m.get("replaces");
      for (int i = 0; i < items.size(); i++) {
        String here = at + ".replaces[" + i + "]";
        Map<String, Object> r = map(items.get(i), here, file);
        keys(r, Set.of("name"), here + ".", file);
        String replaced = r.get("name") == null ? "" : scalar(r.get("name"), here + ".name", file);
        if (replaced.isEmpty()) {
          throw new ConfigException(file, here + ".name must not be empty");
        }
        if (replaced.equals(name)) {
          throw new ConfigException(file, here + ".name must not name its own rule '"
              + name + "'");
        }
        replaces.add(replaced);
      }
    }
    Algorithm algorithm = Algorithm.SLIDING_PANES;
    if (m.get("algorithm") != null) {
      String a = scalar(m.get("algorithm"), at + ".algorithm", file).toLowerCase(Locale.ROOT);
      switch (a) {
        case "panes": algorithm = Algorithm.SLIDING_PANES; break;
        case "log": algorithm = Algorithm.SLIDING_LOG; break;
        case "weighted": algorithm = Algorithm.SLIDING_WEIGHTED; break;
        default: throw new ConfigException(file, at + ".algorithm must be panes, log or"
            + " weighted, was '" + a + "'");
      }
    }
    if (algorithm == Algorithm.SLIDING_LOG && requests > 1_000_000) {
      throw new ConfigException(file, at + ".algorithm log keeps one entry per request: it"
          + " takes requests_per_unit up to 1000000, was " + requests + "; use panes");
    }
    RlsRule rule = new RlsRule(domain, path, name, replaces, unlimited, shadow, detailed,
        requests, unlimited ? Unit.UNKNOWN : unit, algorithm);
    rules.add(rule);
    return rule;
  }

  /** {@code o} as a map of fields, or a ConfigException naming {@code at} (also for RLQS). */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> map(Object o, String at, String file)
      throws ConfigException {
    if (!(o instanceof Map)) {
      throw new ConfigException(file, at + " must be a map of fields");
    }
    for (Object k : ((Map<Object, Object>) o).keySet()) {
      if (!(k instanceof String)) {
        throw new ConfigException(file, at + ": key '" + k + "' is not a string");
      }
    }
    return (Map<String, Object>) o;
  }

  /** Refuses a key of {@code m} not in {@code allowed}, listing them (also for RLQS). */
  public static void keys(Map<String, Object> m, Set<String> allowed, String at, String file)
      throws ConfigException {
    for (String k : m.keySet()) {
      if (!allowed.contains(k)) {
        throw new ConfigException(file, "unknown key '" + at + k + "'; allowed here: "
            + String.join(", ", new java.util.TreeSet<>(allowed)));
      }
    }
  }

  private static String scalar(Object o, String at, String file) throws ConfigException {
    if (o instanceof String || o instanceof Number || o instanceof Boolean) {
      return o.toString();
    }
    throw new ConfigException(file, at + " must be a text value");
  }

  private static boolean bool(Map<String, Object> m, String field, String at, String file)
      throws ConfigException {
    Object o = m.get(field);
    if (o == null) {
      return false;
    }
    if (!(o instanceof Boolean)) {
      throw new ConfigException(file, at + "." + field + " must be true or false, was '" + o
          + "'");
    }
    return (Boolean) o;
  }
}
