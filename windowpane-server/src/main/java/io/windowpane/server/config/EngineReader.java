package io.windowpane.server.config;

import io.windowpane.redis.RedisEngine;
import io.windowpane.redis.ScriptMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code engine} section. URIs are checked by the Redis engine's own builder (which
 * parses without connecting), so a URI accepted here is one the engine accepts; the checks the
 * builder would only make when connecting (a database on a cluster, a username without a
 * password) are made here, with the line.
 */
final class EngineReader {

  private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
  private static final Duration MAX_TIMEOUT = Duration.ofSeconds(60);

  private final Problems problems;
  private final UnaryOperator<String> env;

  private EngineReader(Problems problems, UnaryOperator<String> env) {
    this.problems = problems;
    this.env = env;
  }

  /** The engine section {@code node}; {@code env} looks up {@code passwordEnv}. */
  static EngineConfig read(Node node, Problems problems, UnaryOperator<String> env) {
    return new EngineReader(problems, env).engine(
        YamlMap.fields(node, "engine", problems, "type", "onFailure", "local", "redis"));
  }

  private EngineConfig engine(YamlMap m) {
    String type = m.has("type")
        ? Scalars.choice(m.value("type"), m.path("type"), problems, "local", "redis") : "local";
    EngineConfig.OnFailure onFailure = EngineConfig.OnFailure.valueOf(
        m.choice("onFailure", "error", "error", "allow", "deny").toUpperCase(Locale.ROOT));
    if (type == null) {
      return EngineConfig.local(); // reported; which blocks belong is unknown
    }
    if (type.equals("local")) {
      if (m.has("redis")) {
        problems.at(m.keyNode("redis"), m.path("redis") + " applies to type: redis; set"
            + " engine.type: redis to use Redis, or remove engine.redis");
      }
      Long maxKeys = null;
      if (m.has("local")) {
        YamlMap local = YamlMap.fields(m.value("local"), m.path("local"), problems, "maxKeys");
        if (local.has("maxKeys")) {
          maxKeys = local.integer("maxKeys", 0, 1, Integer.MAX_VALUE);
        }
      }
      return new EngineConfig(EngineConfig.Kind.LOCAL, onFailure, maxKeys,
          RedisSettings.DEFAULTS);
    }
    if (m.has("local")) {
      problems.at(m.keyNode("local"), m.path("local") + " applies to type: local; remove it"
          + " or set engine.type: local");
    }
    if (!m.has("redis")) {
      problems.at(m.value("type"), "engine.type redis needs an engine.redis block with a uri"
          + " (or cluster), e.g. uri: redis://127.0.0.1:6379");
      return EngineConfig.local();
    }
    return new EngineConfig(EngineConfig.Kind.REDIS, onFailure, null, redis(YamlMap.fields(
        m.value("redis"), m.path("redis"), problems, "uri", "cluster", "username", "password",
        "passwordEnv", "database", "timeout", "connectTimeout", "scripts", "time")));
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
    String password = password(m);
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
        ScriptMode.valueOf(m.choice("scripts", "auto", "auto", "functions", "evalsha")
            .toUpperCase(Locale.ROOT)),
        m.choice("time", "server", "server", "client").equals("client"));
  }

  /** Checks {@code node} is a URI the engine takes; adds it to {@code uris}. */
  private void uri(Node node, String path, List<String> uris) {
    String uri = Scalars.text(node, path, problems);
    if (uri == null) {
      return;
    }
    try {
      RedisEngine.builder().uri(uri); // parses, does not connect
      uris.add(uri);
    } catch (IllegalArgumentException e) {
      problems.at(node, path + ": " + e.getMessage());
    }
  }

  /** The literal {@code password}, or the value of the variable {@code passwordEnv} names. */
  private String password(YamlMap m) {
    if (m.has("password") && m.has("passwordEnv")) {
      problems.at(m.keyNode("passwordEnv"), m.path() + " takes password or passwordEnv, not"
          + " both");
      return null;
    }
    if (!m.has("passwordEnv")) {
      return m.text("password", null);
    }
    String name = m.text("passwordEnv", null);
    if (name == null) {
      return null;
    }
    String value = env.apply(name);
    if (value == null || value.isEmpty()) {
      problems.at(m.value("passwordEnv"), m.path("passwordEnv") + ": the environment variable "
          + name + (value == null ? " is not set" : " is empty"));
      return null;
    }
    return value;
  }
}
