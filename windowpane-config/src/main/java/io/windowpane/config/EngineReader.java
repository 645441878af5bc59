package io.windowpane.config;

import io.windowpane.config.EngineConfig.Kind;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.function.UnaryOperator;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code engine} section: one engine ({@code type}) or a failover chain
 * ({@code chain}), the block of each engine used, and for a chain its {@code failover} block.
 * A block for an engine that is not used is an error (it would be silently ignored). Nothing
 * here needs the Redis or etcd module: Redis URIs are checked here ({@link #redisUriProblem})
 * by the rules of the Redis engine's parser (scheme, host, port, database), which has the last
 * word when the engine is opened; the checks the engine's builder would only make when
 * connecting (a database on a cluster, a username without a password) are made here too, with
 * the line.
 */
public final class EngineReader {

  private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
  private static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);
  private static final String[] KINDS = {"local", "redis", "etcd"};
  private static final String CHAIN_EXAMPLE = "[redis, local]";
  private static final String REDIS_EXAMPLE = "uri: redis://127.0.0.1:6379";

  private final Problems problems;
  private final UnaryOperator<String> env;
  /** The node of each engine named in {@code engine.chain}, for problems about it. */
  private final Map<Kind, Node> members = new EnumMap<>(Kind.class);

  private EngineReader(Problems problems, UnaryOperator<String> env) {
    this.problems = problems;
    this.env = env;
  }

  /** The engine section {@code node}; {@code env} looks up {@code passwordEnv}. */
  public static EngineConfig read(Node node, Problems problems, UnaryOperator<String> env) {
    return read(node, "engine", problems, env);
  }

  /** The same, for an engine section at {@code path} (the starter's {@code windowpane.engine}). */
  static EngineConfig read(Node node, String path, Problems problems,
      UnaryOperator<String> env) {
    return new EngineReader(problems, env).engine(YamlMap.fields(node, path, problems,
        "type", "chain", "onFailure", "local", "redis", "etcd", "failover"));
  }

  private EngineConfig engine(YamlMap m) {
    EngineConfig.OnFailure onFailure = EngineConfig.OnFailure.valueOf(
        m.choice("onFailure", "error", "error", "allow", "deny").toUpperCase(Locale.ROOT));
    boolean chain = m.has("chain");
    if (chain && m.has("type")) {
      problems.at(m.keyNode("chain"), m.path() + " takes type (one engine) or chain (several, in"
          + " order of preference), not both");
      return EngineConfig.local();
    }
    List<Kind> engines;
    if (chain) {
      engines = chain(m);
    } else {
      String type = m.has("type") ? Scalars.choice(m.value("type"), m.path("type"), problems,
          KINDS) : "local";
      engines = type == null ? null : List.of(Kind.valueOf(type.toUpperCase(Locale.ROOT)));
    }
    if (engines == null) {
      return EngineConfig.local(); // reported; which blocks belong is unknown
    }
    if (m.has("failover") && !chain) {
      problems.at(m.keyNode("failover"), m.path("failover") + " applies to engine.chain;"
          + " remove it, or list the engines in order, e.g. chain: " + CHAIN_EXAMPLE);
    }
    for (Kind kind : Kind.values()) {
      if (m.has(kind.label()) && !engines.contains(kind)) {
        unused(m, kind, chain);
      }
    }
    Long maxKeys = null;
    if (engines.contains(Kind.LOCAL) && m.has("local")) {
      YamlMap local = YamlMap.fields(m.value("local"), m.path("local"), problems, "maxKeys");
      if (local.has("maxKeys")) {
        maxKeys = local.integer("maxKeys", 0, 1, Integer.MAX_VALUE);
      }
    }
    RedisSettings redis = RedisSettings.DEFAULTS;
    if (engines.contains(Kind.REDIS)) {
      if (m.has("redis")) {
        redis = redis(YamlMap.fields(m.value("redis"), m.path("redis"), problems, "uri",
            "cluster", "username", "password", "passwordEnv", "database", "timeout",
            "connectTimeout", "scripts", "time", "memoryGuard"));
      } else {
        noBlock(m, chain, engines, Kind.REDIS, "an engine.redis block with a uri (or"
            + " cluster), e.g. " + REDIS_EXAMPLE);
      }
    }
    EtcdSettings etcd = EtcdSettings.DEFAULTS;
    if (engines.contains(Kind.ETCD)) {
      if (m.has("etcd")) {
        etcd = EtcdReader.read(m.value("etcd"), m.path("etcd"), problems, env);
      } else {
        noBlock(m, chain, engines, Kind.ETCD, "an engine.etcd block with endpoints, e.g."
            + " endpoints: " + EtcdReader.EXAMPLE);
      }
    }
    FailoverOptions failover = chain && m.has("failover")
        ? FailoverReader.read(m.value("failover"), m.path("failover"), problems,
            engines.stream().map(Kind::label).toList())
        : FailoverOptions.DEFAULTS;
    return new EngineConfig(engines, chain, onFailure, maxKeys, redis, etcd, failover);
  }

  /** The engines of {@code engine.chain}, in order; null when it has a problem (reported). */
  private List<Kind> chain(YamlMap m) {
    List<Node> items = Scalars.list(m.value("chain"), m.path("chain"), problems,
        CHAIN_EXAMPLE);
    if (items == null) {
      return null;
    }
    if (items.isEmpty()) {
      problems.at(m.value("chain"), m.path("chain") + " must name 1 to " + KINDS.length
          + " engines in order of preference, e.g. " + CHAIN_EXAMPLE + "; was empty");
      return null;
    }
    int before = problems.count();
    List<Kind> engines = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      String path = m.path("chain") + "[" + i + "]";
      String name = Scalars.choice(items.get(i), path, problems, KINDS);
      if (name == null) {
        continue;
      }
      Kind kind = Kind.valueOf(name.toUpperCase(Locale.ROOT));
      int other = engines.indexOf(kind);
      if (other >= 0) {
        problems.at(items.get(i), path + ": " + name + " is also " + m.path("chain") + "["
            + other + "]; name each engine once");
      }
      engines.add(kind);
      members.putIfAbsent(kind, items.get(i));
    }
    return problems.count() > before ? null : engines;
  }

  /** Reports the block of {@code kind}, which is neither the type nor in the chain. */
  private void unused(YamlMap m, Kind kind, boolean chain) {
    String block = m.path(kind.label());
    if (chain) {
      problems.at(m.keyNode(kind.label()), block + " is set but " + kind.label() + " is not in"
          + " engine.chain; add it to the chain or remove " + block);
    } else if (kind == Kind.LOCAL) {
      problems.at(m.keyNode("local"), block + " applies to type: local; remove it or set"
          + " engine.type: local");
    } else {
      String display = kind == Kind.REDIS ? "Redis" : "etcd";
      problems.at(m.keyNode(kind.label()), block + " applies to type: " + kind.label()
          + "; set engine.type: " + kind.label() + " to use " + display + ", or remove "
          + block);
    }
  }

  /** Reports that {@code kind}, the type or a chain member, has no block. */
  private void noBlock(YamlMap m, boolean chain, List<Kind> engines, Kind kind, String needs) {
    if (chain) {
      problems.at(members.get(kind), m.path("chain") + "[" + engines.indexOf(kind) + "] is "
          + kind.label() + ", which needs " + needs);
    } else {
      problems.at(m.value("type"), m.path("type") + " " + kind.label() + " needs " + needs);
    }
  }

  private RedisSettings redis(YamlMap m) {
    List<String> uris = new ArrayList<>();
    boolean cluster = m.has("cluster");
    if (m.has("uri") == cluster) {
      problems.at(cluster ? m.keyNode("cluster") : m.node(), m.path() + " needs exactly one of"
          + " uri (one server) or cluster (seed URIs of a Redis Cluster), "
          + (cluster ? "not both" : "e.g. uri: redis://127.0.0.1:6379"));
    } else if (cluster) {
      List<Node> seeds = Scalars.list(m.value("cluster"), m.path("cluster"), problems,
          "[ \"redis://10.0.0.1:7000\" ]");
      if (seeds != null && seeds.isEmpty()) {
        problems.at(m.value("cluster"), m.path("cluster") + " must hold at least one seed URI");
      }
      for (int i = 0; seeds != null && i < seeds.size(); i++) {
        uri(seeds.get(i), m.path("cluster") + "[" + i + "]", uris);
      }
    } else {
      uri(m.value("uri"), m.path(), uris);
    }
    String username = m.text("username", null);
    String password = Passwords.read(m, problems, env);
    if (username != null && password == null && !m.has("password") && !m.has("passwordEnv")) {
      problems.at(m.value("username"), m.path("username") + " needs a password: add password"
          + " or passwordEnv");
    }
    Integer database = null;
    if (m.has("database")) {
      database = (int) m.integer("database", 0, 0, 65_535);
      if (cluster) {
        problems.at(m.keyNode("database"), m.path("database") + " applies to a standalone"
            + " server only: a Redis Cluster has only database 0");
      }
    }
    return new RedisSettings(uris, cluster, username, password, database,
        m.duration("timeout", RedisSettings.DEFAULT_TIMEOUT, MIN_TIMEOUT, MAX_TIMEOUT),
        m.duration("connectTimeout", RedisSettings.DEFAULT_CONNECT_TIMEOUT, MIN_TIMEOUT,
            MAX_TIMEOUT),
        RedisSettings.Scripts.valueOf(m.choice("scripts", "auto", "auto", "functions",
            "evalsha").toUpperCase(Locale.ROOT)),
        m.choice("time", "server", "server", "client").equals("client"),
        m.has("memoryGuard") ? RedisMemoryGuard.read(YamlMap.fields(m.value("memoryGuard"),
            m.path("memoryGuard"), problems, RedisMemoryGuard.FIELDS), problems)
            : RedisMemoryGuard.DEFAULTS);
  }

  /** Checks {@code node} is a URI the engine takes; adds it to {@code uris}. */
  private void uri(Node node, String path, List<String> uris) {
    String uri = Scalars.text(node, path, problems);
    if (uri == null) {
      return;
    }
    String problem = redisUriProblem(uri);
    if (problem != null) {
      problems.at(node, path + ": " + problem);
    } else {
      uris.add(uri);
    }
  }

  /**
   * Null when {@code uri} is one the Redis engine takes, else the problem, e.g. "uri must start
   * with redis:// or rediss://, was localhost:6379": {@code redis://} or {@code rediss://}, a
   * host, a port up to 65535, and a database (the path, or a {@code database} or {@code db}
   * parameter) that is a number. The same rules as the engine's parser (Lettuce's
   * {@code RedisURI}), without needing it on the class path; {@code RedisUriParityTest} in
   * windowpane-server holds the two together.
   */
  public static String redisUriProblem(String uri) {
    if (uri == null || !(uri.startsWith("redis://") || uri.startsWith("rediss://"))) {
      return "uri must start with redis:// or rediss://, was " + uri;
    }
    URI parsed;
    try {
      parsed = new URI(uri);
    } catch (URISyntaxException e) {
      return "uri is not a valid Redis URI: " + e.getReason() + " at index " + e.getIndex()
          + ", was " + EngineConfig.redacted(uri); // the input would show a password
    }
    String authority = parsed.getRawAuthority();
    String host = authority == null ? "" : authority.substring(authority.lastIndexOf('@') + 1);
    if (host.isEmpty()) {
      return "uri is not a valid Redis URI: it names no host, e.g. redis://127.0.0.1:6379, was "
          + EngineConfig.redacted(uri);
    }
    if (parsed.getPort() > 65_535) {
      return "uri is not a valid Redis URI: the port must be at most 65535, was "
          + parsed.getPort();
    }
    String path = parsed.getPath();
    if (path != null && path.length() > 1 && !isDatabase(path.substring(1))) {
      return "uri is not a valid Redis URI: the path is the database number, e.g."
          + " redis://127.0.0.1:6379/2, was " + path;
    }
    String query = parsed.getQuery();
    for (String param : query == null ? new String[0] : query.split("[&;]")) {
      String name = param.toLowerCase(Locale.ROOT);
      int eq = param.indexOf('=');
      if ((name.startsWith("database=") || name.startsWith("db="))
          && !isDatabase(param.substring(eq + 1))) {
        return "uri is not a valid Redis URI: " + param.substring(0, eq) + " must be a"
            + " database number, was " + param.substring(eq + 1);
      }
    }
    return null;
  }

  private static boolean isDatabase(String text) {
    if (!text.matches("[0-9]{1,10}")) {
      return false;
    }
    return Long.parseLong(text) <= Integer.MAX_VALUE;
  }
}
