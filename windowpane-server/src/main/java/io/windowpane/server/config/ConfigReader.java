package io.windowpane.server.config;

import io.windowpane.config.*;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.yaml.snakeyaml.nodes.Node;

/*
 * Design note: one pass over the node tree, section by section, into a ConfigDraft. Each reader
 * reports what is wrong where it is (Problems) and carries on with defaults, so one run lists
 * every problem of the file; objects that depend on a value with a problem (a Limit whose window
 * did not parse) are simply not built, which keeps one mistake from echoing as several. The
 * draft is frozen into a ServerConfig only when no problem was found.
 */

/** Reads configuration text into a {@link ServerConfig}: the top level, server and auth. */
final class ConfigReader {

  private ConfigReader() {}

  /**
   * The configuration in {@code yaml}, read from {@code file}; {@code dir} (null: the working
   * directory) resolves a relative {@code tokensFile}; {@code env} looks up {@code passwordEnv}.
   */
  static ServerConfig read(String yaml, String file, Path dir, UnaryOperator<String> env)
      throws ConfigException {
    Node root = YamlDocument.compose(yaml, file);
    Problems problems = new Problems(file);
    YamlMap top = YamlMap.fields(root, "", problems,
        "server", "auth", "engine", "limiters", "counters", "stats", "rls", "rlqs", "tracing");
    ConfigDraft d = new ConfigDraft();
    d.source = file;
    if (top.has("server")) {
      server(YamlMap.fields(top.value("server"), "server", problems, "host", "port",
          "maxBodyBytes", "maxKeyLength", "maxBatch", "shutdownTimeout", "topKeys",
          "reloadInterval"), d, problems);
    }
    if (top.has("auth")) {
      auth(YamlMap.fields(top.value("auth"), "auth", problems, "tokens", "tokensFile"),
          top.keyNode("auth"), d, dir, problems);
    }
    if (top.has("engine")) {
      d.engine = EngineReader.read(top.value("engine"), problems, env);
    }
    WindowReader windows = new WindowReader(problems);
    if (top.has("limiters")) {
      d.limiters = windows.limiters(YamlMap.names(top.value("limiters"), "limiters", problems));
      d.shadowLimiters = windows.shadowLimiters();
    }
    if (top.has("counters")) {
      d.counters = windows.counters(YamlMap.names(top.value("counters"), "counters", problems));
    }
    if (top.has("stats")) {
      d.stats = windows.stats(YamlMap.names(top.value("stats"), "stats", problems));
    }
    if (top.has("rls")) {
      rls(YamlMap.fields(top.value("rls"), "rls", problems, "grpcPort", "config",
          "reloadInterval"),
          top.keyNode("rls"), d, dir, problems);
    }
    if (top.has("rlqs")) {
      rlqs(YamlMap.fields(top.value("rlqs"), "rlqs", problems, "grpcPort", "config"),
          top.keyNode("rlqs"), d, dir, problems);
    }
    if (top.has("tracing")) {
      tracing(YamlMap.fields(top.value("tracing"), "tracing", problems, "otlp", "samplingRatio"),
          top.keyNode("tracing"), d, problems);
    }
    problems.throwIfAny();
    return new ServerConfig(d);
  }

  /** Tracing: where spans go over OTLP/HTTP, and the sampling ratio (docs/observability.md). */
  private static void tracing(YamlMap m, Node key, ConfigDraft d, Problems problems) {
    if (!m.has("otlp")) {
      problems.at(key, "tracing needs otlp.endpoint, e.g. http://127.0.0.1:4318/v1/traces;"
          + " remove tracing to run without it");
      return;
    }
    YamlMap otlp = YamlMap.fields(m.value("otlp"), m.path("otlp"), problems, "endpoint");
    String endpoint = otlp.text("endpoint", null);
    if (endpoint == null) {
      if (!otlp.has("endpoint")) {
        problems.at(m.value("otlp"), otlp.path("endpoint") + " is missing: the OTLP/HTTP"
            + " traces URL, e.g. http://127.0.0.1:4318/v1/traces");
      }
    } else {
      String problem = ConfigDraft.endpointProblem(endpoint);
      if (problem != null) {
        problems.at(otlp.value("endpoint"), otlp.path("endpoint") + " " + problem);
      } else {
        d.otlpEndpoint = java.net.URI.create(endpoint);
      }
    }
    if (m.has("samplingRatio")) {
      Double ratio = Scalars.number(m.value("samplingRatio"), m.path("samplingRatio"), problems);
      if (ratio != null && !(ratio >= 0 && ratio <= 1)) {
        problems.at(m.value("samplingRatio"), m.path("samplingRatio")
            + " must be a number in [0, 1], was " + ratio);
      } else if (ratio != null) {
        d.samplingRatio = ratio;
      }
    }
  }

  /** The Envoy rate limit quota service: its gRPC port and its buckets (docs/envoy.md). */
  private static void rlqs(YamlMap m, Node key, ConfigDraft d, Path dir, Problems problems) {
    if (!m.has("grpcPort") || !m.has("config")) {
      problems.at(key, "rlqs needs grpcPort and config (a file or directory of RLQS"
          + " buckets)");
      return;
    }
    d.rlqsPort = (int) m.integer("grpcPort", -1, 0, ConfigDraft.MAX_PORT);
    String name = m.text("config", null);
    if (name != null) {
      try {
        d.rlqsConfig = dir == null ? Path.of(name) : dir.resolve(name);
      } catch (InvalidPathException e) {
        problems.at(m.value("config"), m.path("config") + " is not a valid path: "
            + e.getMessage());
      }
    }
  }

  /** The Envoy rate limit service: its gRPC port and its rules (docs/envoy.md). */
  private static void rls(YamlMap m, Node key, ConfigDraft d, Path dir, Problems problems) {
    if (!m.has("grpcPort") || !m.has("config")) {
      problems.at(key, "rls needs grpcPort and config (a file or directory of"
          + " envoyproxy/ratelimit rules)");
      return;
    }
    d.grpcPort = (int) m.integer("grpcPort", -1, 0, ConfigDraft.MAX_PORT);
    d.rlsReloadInterval = m.duration("reloadInterval", d.rlsReloadInterval, Duration.ZERO,
        Duration.ofHours(1));
    String name = m.text("config", null);
    if (name != null) {
      try {
        d.rlsConfig = dir == null ? Path.of(name) : dir.resolve(name);
      } catch (InvalidPathException e) {
        problems.at(m.value("config"), m.path("config") + " is not a valid path: "
            + e.getMessage());
      }
    }
  }

  private static void server(YamlMap m, ConfigDraft d, Problems problems) {
    if (m.has("host")) {
      String host = m.text("host", null);
      String problem = host == null ? null : ConfigDraft.hostProblem(host);
      if (problem != null) {
        problems.at(m.value("host"), m.path("host") + " " + problem);
      } else if (host != null) {
        d.host = host;
      }
    }
    d.port = (int) m.integer("port", d.port, 0, ConfigDraft.MAX_PORT);
    d.maxBodyBytes = (int) m.integer("maxBodyBytes", d.maxBodyBytes,
        ConfigDraft.MIN_MAX_BODY_BYTES, ConfigDraft.MAX_MAX_BODY_BYTES);
    d.maxKeyLength = (int) m.integer("maxKeyLength", d.maxKeyLength, 1,
        ConfigDraft.MAX_MAX_KEY_LENGTH);
    d.maxBatch = (int) m.integer("maxBatch", d.maxBatch, 1, ConfigDraft.MAX_MAX_BATCH);
    d.topKeys = (int) m.integer("topKeys", d.topKeys, 0, io.windowpane.TopKey.MAX_COUNTERS);
    d.shutdownTimeout = m.duration("shutdownTimeout", d.shutdownTimeout, Duration.ZERO,
        ConfigDraft.MAX_SHUTDOWN_TIMEOUT);
    d.reloadInterval = m.duration("reloadInterval", d.reloadInterval, Duration.ZERO,
        Duration.ofHours(1));
  }

  private static void auth(YamlMap m, Node key, ConfigDraft d, Path dir, Problems problems) {
    if (m.isEmpty()) {
      problems.at(key, "auth needs tokens or tokensFile; remove auth to run without"
          + " tokens");
      return;
    }
    if (m.has("tokens")) {
      List<Node> items = Scalars.list(m.value("tokens"), m.path("tokens"), problems,
          "[ \"a-long-random-token\" ]");
      if (items != null && items.isEmpty()) {
        problems.at(m.value("tokens"), m.path("tokens") + " must hold at least one token;"
            + " remove auth to run without tokens");
      }
      for (int i = 0; items != null && i < items.size(); i++) {
        String path = m.path("tokens") + "[" + i + "]";
        String token = Scalars.text(items.get(i), path, problems);
        String problem = token == null ? null : Tokens.problem(token);
        if (problem != null) {
          problems.at(items.get(i), path + " " + problem);
        } else if (token != null) {
          d.tokens.add(token);
        }
      }
    }
    if (m.has("tokensFile")) {
      String name = m.text("tokensFile", null);
      if (name != null) {
        try {
          Path file = dir == null ? Path.of(name) : dir.resolve(name);
          d.tokens.addAll(Tokens.readFile(file));
        } catch (InvalidPathException e) {
          problems.at(m.value("tokensFile"), m.path("tokensFile") + " is not a valid path: "
              + e.getMessage());
        } catch (ConfigException e) {
          for (Problems.Problem p : e.problems()) {
            problems.at(m.value("tokensFile"), m.path("tokensFile") + ": " + p);
          }
        }
      }
    }
  }
}
