package io.windowpane.server.config;

import io.windowpane.config.*;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The mutable form of a {@link ServerConfig}, filled by the reader or copied for an override,
 * then frozen by {@code new ServerConfig(draft)}. Starts at the defaults of the {@code server}
 * section, the local engine, no tokens and nothing configured. Also the home of the ranges the
 * contract gives the {@code server} section.
 */
final class ConfigDraft {

  static final String DEFAULT_HOST = "127.0.0.1";
  static final int DEFAULT_PORT = 8080;
  static final int MAX_PORT = 65_535;
  static final int DEFAULT_MAX_BODY_BYTES = 65_536;
  static final int MIN_MAX_BODY_BYTES = 64;
  static final int MAX_MAX_BODY_BYTES = 16_777_216; // 16 MiB
  static final int DEFAULT_MAX_KEY_LENGTH = 256;
  static final int MAX_MAX_KEY_LENGTH = 256;
  static final int DEFAULT_MAX_BATCH = 1_000;
  static final int MAX_MAX_BATCH = 10_000;
  /**
   * Counters per pane of every window's top-keys sketch when {@code server.topKeys} is not set
   * and the (first) engine is local; on Redis or etcd unset means off, since there every event
   * would cost the shared server a call more (docs/server.md).
   */
  static final int DEFAULT_TOP_KEYS = 100;
  /** {@code server.topKeys} not given: {@link ServerConfig#topKeys()} decides by engine. */
  static final int TOP_KEYS_UNSET = -1;
  static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);
  static final Duration MAX_SHUTDOWN_TIMEOUT = Duration.ofMinutes(5);

  String host = DEFAULT_HOST;
  int port = DEFAULT_PORT;
  int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
  int maxKeyLength = DEFAULT_MAX_KEY_LENGTH;
  int maxBatch = DEFAULT_MAX_BATCH;
  int topKeys = TOP_KEYS_UNSET;
  Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
  List<String> tokens = new ArrayList<>();
  EngineConfig engine = EngineConfig.local();
  Map<String, Quota> limiters = new LinkedHashMap<>();
  Set<String> shadowLimiters = Set.of();
  Map<String, WindowSpec> counters = new LinkedHashMap<>();
  Map<String, StatsSpec> stats = new LinkedHashMap<>();
  String source;
  /** The Envoy rate limit service (section rls): -1 for off. */
  int grpcPort = -1;
  java.nio.file.Path rlsConfig;
  /** The file this was loaded from (ServerConfig.load); null otherwise. */
  java.nio.file.Path file;
  /** How often that file is checked for changed limiters; zero: never. */
  java.time.Duration reloadInterval = java.time.Duration.ofSeconds(1);
  /** How often the rules' files are checked for changes; zero: never. */
  java.time.Duration rlsReloadInterval = java.time.Duration.ofSeconds(1);
  /** The Envoy rate limit quota service (section rlqs): -1 for off. */
  int rlqsPort = -1;
  java.nio.file.Path rlqsConfig;
  /** Where spans are sent over OTLP/HTTP (section tracing); null: tracing off. */
  java.net.URI otlpEndpoint;
  /** The part of the traces started here that are sampled (a caller's choice is followed). */
  double samplingRatio = 1.0;

  /** Null when {@code endpoint} is an http(s) URL with a host, else a problem after its name. */
  static String endpointProblem(String endpoint) {
    try {
      java.net.URI uri = new java.net.URI(endpoint);
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          && uri.getHost() != null) {
        return null;
      }
    } catch (java.net.URISyntaxException e) {
      // reported below
    }
    return "must be an http:// or https:// URL with a host, e.g."
        + " http://127.0.0.1:4318/v1/traces, was '" + endpoint + "'";
  }

  /** Null when {@code host} can be listened on, else a problem completing "host ...". */
  static String hostProblem(String host) {
    if (host == null || host.isEmpty() || host.length() > 253) {
      return "must be a host name or IP address of 1 to 253 characters, was "
          + (host == null ? "null" : host.length() + " characters long");
    }
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      if (c <= ' ' || c >= 0x7f || c == '/' || c == '@' || c == '?' || c == '#') {
        return "must be a host name or IP address (no spaces, '/', '@', '?' or '#'), was '"
            + host + "'";
      }
    }
    return null;
  }
}
