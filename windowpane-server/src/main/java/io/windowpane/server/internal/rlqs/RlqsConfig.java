package io.windowpane.server.internal.rlqs;

import io.windowpane.Algorithm;
import io.windowpane.Limit;
import io.windowpane.Windowpane;
import io.windowpane.WindowSpec;
import io.windowpane.config.ConfigException;
import io.windowpane.server.internal.rls.RlsConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/*
 * Design note. The bucket file follows the RLS rules' habits (docs/envoy.md): one domain per
 * file, a file or a directory of them, strict loading that names the file and the path of the
 * first problem, unknown keys refused. A bucket rule matches a bucket id by its exact key set;
 * each value is either exact or "*" (any value). Rules are tried in file order and the first
 * match wins, so a specific rule goes before a wildcard one. Every concrete bucket id gets its
 * own window (a wildcard does not share one window between values).
 */

/** The RLQS buckets of every domain, immutable after {@link #bind}. */
public final class RlqsConfig {

  static final Duration DEFAULT_TTL = Duration.ofSeconds(10);
  static final Duration MIN_TTL = Duration.ofSeconds(1);
  static final Duration MAX_TTL = Duration.ofHours(1);
  static final Duration DEFAULT_ABANDON_AFTER = Duration.ofMinutes(5);
  static final Duration MAX_ABANDON_AFTER = Duration.ofDays(1);
  static final int DEFAULT_PANES = 10;
  /** Most entries in one match (and in one bucket id). */
  static final int MAX_ENTRIES = 16;

  private static final Set<String> TOP = Set.of("domain", "assignmentTtl", "abandonAfter",
      "strategy", "buckets");
  private static final Set<String> BUCKET = Set.of("name", "match", "limit", "assignmentTtl",
      "strategy");
  private static final Set<String> LIMIT = Set.of("permits", "window", "panes", "algorithm");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,48}");
  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  private final Map<String, List<RlqsBucketRule>> domains = new LinkedHashMap<>();
  private final Map<String, Duration> abandonAfter = new LinkedHashMap<>();
  private final Set<String> names = new TreeSet<>();

  private RlqsConfig() {}

  /**
   * Reads {@code path}: one YAML file, or every {@code .yaml} / {@code .yml} file under a
   * directory (as the RLS rules are read). Two files may not name the same domain, two buckets
   * anywhere may not share a name.
   *
   * @throws ConfigException naming the file and the field of the first problem
   */
  public static RlqsConfig load(Path path) throws ConfigException {
    RlqsConfig config = new RlqsConfig();
    for (Path file : RlsConfig.files(path)) {
      try {
        config.add(Files.readString(file, StandardCharsets.UTF_8), file.toString());
      } catch (IOException e) {
        throw new ConfigException(file.toString(), "cannot read the RLQS bucket file: " + e);
      }
    }
    return config;
  }

  /** Parses one file's {@code yaml}, named {@code source} in problems (tests). */
  public static RlqsConfig parse(String yaml, String source) throws ConfigException {
    RlqsConfig config = new RlqsConfig();
    config.add(yaml, source);
    return config;
  }

  /** Builds every bucket rule's windows on {@code wp}. */
  public RlqsConfig bind(Windowpane wp) {
    domains.values().forEach(rules -> rules.forEach(rule -> rule.bind(wp)));
    return this;
  }

  /** The domains, in load order. */
  public Set<String> domains() {
    return domains.keySet();
  }

  /** Every bucket rule's name, sorted. */
  public Set<String> bucketNames() {
    return names;
  }

  /** The rules of {@code domain}, or null for an unknown domain. */
  List<RlqsBucketRule> rules(String domain) {
    return domains.get(domain);
  }

  /** How long a stream may report nothing but zeros for a bucket before it is abandoned. */
  Duration abandonAfter(String domain) {
    return abandonAfter.getOrDefault(domain, DEFAULT_ABANDON_AFTER);
  }

  /** The first rule of {@code domain} matching {@code bucket}, or null. */
  RlqsBucketRule match(String domain, Map<String, String> bucket) {
    List<RlqsBucketRule> rules = domains.get(domain);
    if (rules == null) {
      return null;
    }
    for (RlqsBucketRule rule : rules) {
      if (rule.matches(bucket)) {
        return rule;
      }
    }
    return null;
  }

  private void add(String yaml, String file) throws ConfigException {
    Object root;
    try {
      root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
    } catch (YAMLException e) {
      throw new ConfigException(file, "not valid YAML: " + e.getMessage());
    }
    Map<String, Object> top = RlsConfig.map(root, "the file", file);
    RlsConfig.keys(top, TOP, "", file);
    String domain = top.get("domain") == null ? "" : text(top.get("domain"), "domain", file);
    if (domain.isEmpty()) {
      throw new ConfigException(file, "domain must not be empty (it is the rate_limit_quota"
          + " filter's domain)");
    }
    if (domains.containsKey(domain)) {
      throw new ConfigException(file, "duplicate domain '" + domain + "' (another file names it)");
    }
    Duration ttl = duration(top, "assignmentTtl", DEFAULT_TTL, MIN_TTL, MAX_TTL, "", file);
    abandonAfter.put(domain, duration(top, "abandonAfter", DEFAULT_ABANDON_AFTER,
        Duration.ZERO, MAX_ABANDON_AFTER, "", file));
    boolean tokenBucket = strategy(top, "", false, file);
    if (!(top.get("buckets") instanceof List) || ((List<?>) top.get("buckets")).isEmpty()) {
      throw new ConfigException(file, "buckets must be a list of at least one bucket");
    }
    List<?> items = (List<?>) top.get("buckets");
    List<RlqsBucketRule> rules = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      rules.add(bucket(RlsConfig.map(items.get(i), "buckets[" + i + "]", file),
          "buckets[" + i + "].",
          domain, ttl, tokenBucket, file));
    }
    domains.put(domain, List.copyOf(rules));
  }

  private RlqsBucketRule bucket(Map<String, Object> b, String at, String domain, Duration ttl,
      boolean tokenBucket, String file) throws ConfigException {
    RlsConfig.keys(b, BUCKET, at, file);
    String name = b.get("name") == null ? "" : text(b.get("name"), at + "name", file);
    if (!NAME.matcher(name).matches()) {
      throw new ConfigException(file, at + "name must be 1 to 48 characters of A-Z a-z 0-9"
          + " _ . -, was '" + name + "'");
    }
    if (!names.add(name)) {
      throw new ConfigException(file, at + "name: duplicate bucket name '" + name + "'");
    }
    Map<String, Object> m = RlsConfig.map(b.get("match"), at + "match", file);
    if (m.isEmpty() || m.size() > MAX_ENTRIES) {
      throw new ConfigException(file, at + "match must hold 1 to " + MAX_ENTRIES
          + " bucket id entries, was " + m.size());
    }
    Map<String, String> match = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : m.entrySet()) {
      String value = text(e.getValue(), at + "match." + e.getKey(), file);
      if (e.getKey().isEmpty() || value.isEmpty()) {
        throw new ConfigException(file, at + "match: keys and values must not be empty (use"
            + " \"*\" for any value)");
      }
      match.put(e.getKey(), value);
    }
    Limit limit = limit(RlsConfig.map(b.get("limit"), at + "limit", file), at + "limit.", file);
    Duration bucketTtl = duration(b, "assignmentTtl", ttl, MIN_TTL, MAX_TTL, at, file);
    if (bucketTtl.toMillis() % 100 != 0) {
      throw new ConfigException(file, at + "assignmentTtl must be whole tenths of a second,"
          + " was " + bucketTtl.toMillis() + "ms");
    }
    return new RlqsBucketRule(domain, name, match, limit, bucketTtl,
        strategy(b, at, tokenBucket, file));
  }

  private static Limit limit(Map<String, Object> m, String at, String file)
      throws ConfigException {
    RlsConfig.keys(m, LIMIT, at, file);
    Object permits = m.get("permits");
    if (!(permits instanceof Integer || permits instanceof Long)
        || ((Number) permits).longValue() < 1
        || ((Number) permits).longValue() > Limit.MAX_PERMITS) {
      throw new ConfigException(file, at + "permits must be an integer from 1 to "
          + Limit.MAX_PERMITS + ", was '" + permits + "'");
    }
    Duration window = duration(m, "window", null, Duration.ofSeconds(1),
        Duration.ofMillis(WindowSpec.MAX_WINDOW_MILLIS), at, file);
    if (window == null) {
      throw new ConfigException(file, at + "window is required, e.g. 1m");
    }
    Object panesValue = m.getOrDefault("panes", DEFAULT_PANES);
    if (!(panesValue instanceof Integer)) {
      throw new ConfigException(file, at + "panes must be an integer, was '" + panesValue + "'");
    }
    String algorithmText = m.get("algorithm") == null ? "panes"
        : text(m.get("algorithm"), at + "algorithm", file).toLowerCase(Locale.ROOT);
    Algorithm algorithm;
    switch (algorithmText) {
      case "panes": algorithm = Algorithm.SLIDING_PANES; break;
      case "log": algorithm = Algorithm.SLIDING_LOG; break;
      case "weighted": algorithm = Algorithm.SLIDING_WEIGHTED; break;
      default: throw new ConfigException(file, at + "algorithm must be panes, log or weighted,"
          + " was '" + algorithmText + "'");
    }
    try {
      return Limit.of(((Number) permits).longValue(),
          WindowSpec.of(window, (Integer) panesValue, algorithm));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(file, at.substring(0, at.length() - 1) + ": " + e.getMessage());
    }
  }

  /** {@code strategy}: requestsPerTimeUnit (false, the default) or tokenBucket (true). */
  private static boolean strategy(Map<String, Object> m, String at, boolean fallback,
      String file) throws ConfigException {
    if (m.get("strategy") == null) {
      return fallback;
    }
    String s = text(m.get("strategy"), at + "strategy", file);
    if (s.equals("requestsPerTimeUnit")) {
      return false;
    }
    if (s.equals("tokenBucket")) {
      return true;
    }
    throw new ConfigException(file, at + "strategy must be requestsPerTimeUnit or tokenBucket,"
        + " was '" + s + "'");
  }

  static Duration duration(Map<String, Object> m, String field, Duration fallback,
      Duration min, Duration max, String at, String file) throws ConfigException {
    Object o = m.get(field);
    if (o == null) {
      return fallback;
    }
    Matcher d = DURATION.matcher(o.toString());
    Duration value = null;
    if (d.matches()) {
      long n = Long.parseLong(d.group(1));
      switch (d.group(2)) {
        case "ms": value = Duration.ofMillis(n); break;
        case "s": value = Duration.ofSeconds(n); break;
        case "m": value = Duration.ofMinutes(n); break;
        case "h": value = Duration.ofHours(n); break;
        default: value = Duration.ofDays(n); break;
      }
    }
    if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new ConfigException(file, at + field + " must be a duration from " + min.toMillis()
          + "ms to " + max.toMillis() + "ms written like 500ms, 10s, 5m, 1h or 1d, was '" + o
          + "'");
    }
    return value;
  }

  private static String text(Object o, String at, String file) throws ConfigException {
    if (o instanceof String || o instanceof Number || o instanceof Boolean) {
      return o.toString();
    }
    throw new ConfigException(file, at + " must be a text value");
  }
}
