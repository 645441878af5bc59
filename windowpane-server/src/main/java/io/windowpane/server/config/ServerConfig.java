package io.windowpane.server.config;

import io.windowpane.config.*;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code windowpane serve} runs with: where it listens, its limits on requests, its bearer
 * tokens, its engine, and its named limiters, counters and statistics windows. Immutable and
 * thread-safe; every value is validated when the configuration is built, so the server never
 * meets a bad one.
 *
 * <p>Sources. {@link #defaults()} is what runs with no {@code --config}: a {@code demo} limiter,
 * a {@code requests} counter and a {@code latency} statistics window. A file ({@link #load},
 * {@link #parse}) replaces them: it configures exactly what it names, and a file that names no
 * limiter, counter or statistics window is valid (the service then serves {@code /health},
 * {@code /metrics} and empty listings). Omitted {@code server} and {@code engine} values take the
 * defaults in the contract. Command-line options then override single values
 * ({@link #withHost}, {@link #withPort}, {@link #withRedisUri}, {@link #withEngines},
 * {@link #withTokens}).
 *
 * <p>The file format and every range are those of the "Configuration file (YAML)" section of the
 * server contract. Decisions where it is silent: an empty value ({@code limiters:} alone) reads
 * as an empty section; {@code auth} present must yield at least one token (an empty
 * {@code tokens} list, an empty tokens file or an {@code auth} block with neither is an error,
 * so that a service meant to be protected never starts open); a relative {@code tokensFile} is
 * resolved against the configuration file's directory ({@link #parse}: the working directory);
 * duplicate tokens are kept once; two limits of one limiter may not share a name.
 *
 * <p>Problems are reported all at once, each with the file and line, in a
 * {@link ConfigException}.
 */
public final class ServerConfig {

  private final String host;
  private final int port;
  private final int maxBodyBytes;
  private final int maxKeyLength;
  private final int maxBatch;
  private final int topKeys;
  private final Duration shutdownTimeout;
  private final List<String> tokens;
  private final EngineConfig engine;
  private final Map<String, Quota> limiters;
  private final Set<String> shadowLimiters;
  private final Map<String, WindowSpec> counters;
  private final Map<String, StatsSpec> stats;
  private final String source;
  private final int grpcPort;
  private final Path rlsConfig;
  private final Duration rlsReloadInterval;
  private final int rlqsPort;
  private final Path rlqsConfig;
  private final Path file;
  private final Duration reloadInterval;
  private final java.net.URI otlpEndpoint;
  private final double samplingRatio;

  ServerConfig(ConfigDraft d) {
    this.file = d.file;
    this.reloadInterval = d.reloadInterval;
    this.host = d.host;
    this.port = d.port;
    this.maxBodyBytes = d.maxBodyBytes;
    this.maxKeyLength = d.maxKeyLength;
    this.maxBatch = d.maxBatch;
    this.topKeys = d.topKeys;
    this.shutdownTimeout = d.shutdownTimeout;
    this.tokens = List.copyOf(new LinkedHashSet<>(d.tokens));
    this.engine = d.engine;
    this.limiters = Collections.unmodifiableMap(new LinkedHashMap<>(d.limiters));
    this.shadowLimiters = Set.copyOf(d.shadowLimiters);
    this.counters = Collections.unmodifiableMap(new LinkedHashMap<>(d.counters));
    this.stats = Collections.unmodifiableMap(new LinkedHashMap<>(d.stats));
    this.source = d.source;
    this.grpcPort = d.grpcPort;
    this.rlsConfig = d.rlsConfig;
    this.rlsReloadInterval = d.rlsReloadInterval;
    this.rlqsPort = d.rlqsPort;
    this.rlqsConfig = d.rlqsConfig;
    this.otlpEndpoint = d.otlpEndpoint;
    this.samplingRatio = d.samplingRatio;
  }

  /**
   * Where the service sends its spans over OTLP/HTTP ({@code tracing.otlp.endpoint}, e.g.
   * {@code http://127.0.0.1:4318/v1/traces}); empty when tracing is off (the default). See
   * docs/observability.md.
   */
  public Optional<java.net.URI> otlpEndpoint() {
    return Optional.ofNullable(otlpEndpoint);
  }

  /**
   * The part of the traces that start at the service that are sampled
   * ({@code tracing.samplingRatio}, 0 to 1, default 1); a request that carries a sampled or
   * unsampled W3C {@code traceparent} keeps its caller's choice.
   */
  public double samplingRatio() {
    return samplingRatio;
  }

  /**
   * This configuration sending spans to {@code endpoint} over OTLP/HTTP with
   * {@code samplingRatio}, or without tracing when {@code endpoint} is null.
   *
   * @throws IllegalArgumentException unless {@code endpoint} is null or an http(s) URL with a
   *     host, and {@code samplingRatio} is in [0, 1]
   */
  public ServerConfig withTracing(String endpoint, double samplingRatio) {
    String problem = endpoint == null ? null : ConfigDraft.endpointProblem(endpoint);
    if (problem != null) {
      throw new IllegalArgumentException("tracing.otlp.endpoint " + problem);
    }
    if (!(samplingRatio >= 0 && samplingRatio <= 1)) {
      throw new IllegalArgumentException("tracing.samplingRatio must be in [0, 1], was "
          + samplingRatio);
    }
    ConfigDraft d = draft();
    d.otlpEndpoint = endpoint == null ? null : java.net.URI.create(endpoint);
    d.samplingRatio = samplingRatio;
    return new ServerConfig(d);
  }

  /**
   * The built-in configuration: 127.0.0.1:8080, local engine, no tokens; limiter {@code demo}
   * (one limit named {@code demo}: 2 permits per 10 s, 10 panes), counter {@code requests}
   * (1 min, 60 panes), statistics {@code latency} (histogram, 1 min, 60 panes, 1% accuracy).
   */
  public static ServerConfig defaults() {
    ConfigDraft d = new ConfigDraft();
    d.limiters.put("demo", Quota.of(
        Limit.of(2, WindowSpec.panes(Duration.ofSeconds(10), 10)).named("demo")));
    d.counters.put("requests", WindowSpec.panes(Duration.ofMinutes(1), 60));
    d.stats.put("latency", StatsSpec.histogram(Duration.ofMinutes(1), 60));
    return new ServerConfig(d);
  }

  /**
   * Reads, parses and validates the UTF-8 file {@code file}; problems name it as given
   * ({@code file.toString()}).
   *
   * @throws ConfigException when the file cannot be read or breaks the contract, with every
   *     problem found
   */
  public static ServerConfig load(Path file) throws ConfigException {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new ConfigException(file.toString(), "cannot read the configuration: no such file");
    } catch (CharacterCodingException e) {
      throw new ConfigException(file.toString(), "cannot read the configuration: not UTF-8");
    } catch (IOException e) {
      throw new ConfigException(file.toString(), "cannot read the configuration: " + e);
    }
    Path dir = file.toAbsolutePath().getParent();
    ConfigDraft d = ConfigReader.read(text, file.toString(), dir, System::getenv).draft();
    d.file = file;
    return new ServerConfig(d);
  }

  /**
   * The file this configuration was {@link #load loaded} from, which the service checks for
   * changed limiters every {@link #reloadInterval()}; empty for {@link #defaults()} and
   * {@link #parse}.
   */
  public Optional<Path> file() {
    return Optional.ofNullable(file);
  }

  /**
   * How often the service checks its configuration file for changed limits and applies them
   * ({@code server.reloadInterval}, default 1 s, 0 s to 1 h); zero: never, only at start.
   */
  public Duration reloadInterval() {
    return reloadInterval;
  }

  /**
   * Parses and validates {@code yaml} as if read from a file named {@code sourceName} (used in
   * problems and {@link #source()}); a relative {@code tokensFile} is taken from the working
   * directory.
   *
   * @throws ConfigException when the text breaks the contract, with every problem found
   */
  public static ServerConfig parse(String yaml, String sourceName) throws ConfigException {
    return ConfigReader.read(yaml, sourceName, null, System::getenv);
  }

  /**
   * The tokens of a tokens file ({@code --token-file}, {@code auth.tokensFile}): one per line,
   * surrounding whitespace trimmed, blank lines and lines starting with {@code #} skipped; each
   * 16 to 512 visible ASCII characters with no spaces; at least one.
   *
   * @throws ConfigException naming {@code file} and, for a bad token, its line (never the token)
   */
  public static List<String> readTokensFile(Path file) throws ConfigException {
    return Tokens.readFile(file);
  }

  /** The address to listen on ({@code server.host}, default 127.0.0.1). */
  public String host() {
    return host;
  }

  /** The port to listen on, 0 for any free one ({@code server.port}, default 8080). */
  public int port() {
    return port;
  }

  /** The largest request body accepted, in bytes (64 to 16777216, default 65536). */
  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  /** The longest key accepted, in characters (1 to 256, default 256). */
  public int maxKeyLength() {
    return maxKeyLength;
  }

  /** The most entries in one batch request (1 to 10000, default 1000). */
  public int maxBatch() {
    return maxBatch;
  }

  /**
   * Counters per pane of the top-keys sketch the service gives every limiter, counter and
   * statistics window ({@code server.topKeys}, 0 to 10,000; 0 turns top keys off). When not
   * given: 100 on the local engine (or a chain whose first member is local), 0 on Redis and etcd,
   * where feeding the sketch costs the shared server a call per event.
   */
  public int topKeys() {
    if (topKeys != ConfigDraft.TOP_KEYS_UNSET) {
      return topKeys;
    }
    return engine.kind() == EngineConfig.Kind.LOCAL ? ConfigDraft.DEFAULT_TOP_KEYS : 0;
  }

  /** How long in-flight requests may run on stop (0 s to 5 min, default 10 s). */
  public Duration shutdownTimeout() {
    return shutdownTimeout;
  }

  /**
   * The accepted bearer tokens, unmodifiable, each once: {@code auth.tokens}, then those of
   * {@code auth.tokensFile}, then those added by {@link #withTokens}. Empty: no authentication.
   */
  public List<String> tokens() {
    return tokens;
  }

  /** The engine section. */
  public EngineConfig engine() {
    return engine;
  }

  /**
   * The rate limiters by name, in file order, unmodifiable. A limit given a {@code name} in the
   * file carries it ({@link Limit#named}); others keep the library's name, e.g. {@code 10/1s}.
   */
  public Map<String, Quota> limiters() {
    return limiters;
  }

  /**
   * The limiters in shadow mode ({@code limiters.<name>.shadow: true}): they decide and count
   * like the others, but every acquire is allowed; a decision that would have denied is marked
   * {@code "shadow":true,"wouldDeny":true} and counted as {@code would_deny}.
   */
  public Set<String> shadowLimiters() {
    return shadowLimiters;
  }

  /** The counters by name, in file order, unmodifiable. */
  public Map<String, WindowSpec> counters() {
    return counters;
  }

  /** The statistics windows by name, in file order, unmodifiable. */
  public Map<String, StatsSpec> stats() {
    return stats;
  }

  /** The name of the file this came from; empty for {@link #defaults()}. */
  public Optional<String> source() {
    return Optional.ofNullable(source);
  }

  /**
   * The gRPC port of the Envoy rate limit service ({@code rls.grpcPort}, {@code --grpc-port};
   * 0: any free port), on {@link #host()}; empty when the service is off (the default).
   */
  public java.util.OptionalInt grpcPort() {
    return grpcPort < 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(grpcPort);
  }

  /**
   * The envoyproxy/ratelimit rules of the rate limit service, a YAML file or a directory of them
   * ({@code rls.config}, {@code --rls-config}); present whenever {@link #grpcPort()} is.
   */
  public Optional<Path> rlsConfig() {
    return Optional.ofNullable(rlsConfig);
  }

  /**
   * How often the rate limit service checks its rules' files for changes and reloads them
   * ({@code rls.reloadInterval}, default 1 s, 0 s to 1 h); zero: never, only at start.
   */
  public Duration rlsReloadInterval() {
    return rlsReloadInterval;
  }

  /**
   * This configuration serving the Envoy rate limit service on {@code grpcPort}
   * ({@code --grpc-port}) with the rules at {@code rules} ({@code --rls-config}); either may be
   * null to keep the file's.
   *
   * @throws IllegalArgumentException unless {@code grpcPort} is 0 to 65535 and the result has
   *     both a port and rules
   */
  public ServerConfig withRls(Integer grpcPort, Path rules) {
    if (grpcPort != null && (grpcPort < 0 || grpcPort > ConfigDraft.MAX_PORT)) {
      throw new IllegalArgumentException("grpc port (--grpc-port) must be 0 to "
          + ConfigDraft.MAX_PORT + ", was " + grpcPort);
    }
    ConfigDraft d = draft();
    if (grpcPort != null) {
      d.grpcPort = grpcPort;
    }
    if (rules != null) {
      d.rlsConfig = rules;
    }
    if (d.grpcPort < 0 || d.rlsConfig == null) {
      throw new IllegalArgumentException("the rate limit service needs both --grpc-port (or"
          + " rls.grpcPort) and --rls-config (or rls.config)");
    }
    return new ServerConfig(d);
  }

  /**
   * The gRPC port of the Envoy rate limit quota service ({@code rlqs.grpcPort},
   * {@code --rlqs-port}; 0: any free port), on {@link #host()}; empty when the service is off
   * (the default).
   */
  public java.util.OptionalInt rlqsPort() {
    return rlqsPort < 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(rlqsPort);
  }

  /**
   * The RLQS buckets, a YAML file or a directory of them ({@code rlqs.config},
   * {@code --rlqs-config}); present whenever {@link #rlqsPort()} is.
   */
  public Optional<Path> rlqsConfig() {
    return Optional.ofNullable(rlqsConfig);
  }

  /**
   * This configuration serving the Envoy rate limit quota service on {@code grpcPort}
   * ({@code --rlqs-port}) with the buckets at {@code buckets} ({@code --rlqs-config}); either
   * may be null to keep the file's.
   *
   * @throws IllegalArgumentException unless {@code grpcPort} is 0 to 65535 and the result has
   *     both a port and buckets
   */
  public ServerConfig withRlqs(Integer grpcPort, Path buckets) {
    if (grpcPort != null && (grpcPort < 0 || grpcPort > ConfigDraft.MAX_PORT)) {
      throw new IllegalArgumentException("rlqs port (--rlqs-port) must be 0 to "
          + ConfigDraft.MAX_PORT + ", was " + grpcPort);
    }
    ConfigDraft d = draft();
    if (grpcPort != null) {
      d.rlqsPort = grpcPort;
    }
    if (buckets != null) {
      d.rlqsConfig = buckets;
    }
    if (d.rlqsPort < 0 || d.rlqsConfig == null) {
      throw new IllegalArgumentException("the rate limit quota service needs both --rlqs-port"
          + " (or rlqs.grpcPort) and --rlqs-config (or rlqs.config)");
    }
    return new ServerConfig(d);
  }

  /**
   * This configuration listening on {@code host} ({@code --host}).
   *
   * @throws IllegalArgumentException unless {@code host} is 1 to 253 characters with no spaces
   */
  public ServerConfig withHost(String host) {
    String problem = ConfigDraft.hostProblem(host);
    if (problem != null) {
      throw new IllegalArgumentException("host (--host) " + problem);
    }
    ConfigDraft d = draft();
    d.host = host;
    return new ServerConfig(d);
  }

  /**
   * This configuration listening on {@code port} ({@code --port}; 0: any free port).
   *
   * @throws IllegalArgumentException unless {@code port} is 0 to 65535
   */
  public ServerConfig withPort(int port) {
    if (port < 0 || port > ConfigDraft.MAX_PORT) {
      throw new IllegalArgumentException("port (--port) must be 0 to " + ConfigDraft.MAX_PORT
          + ", was " + port);
    }
    ConfigDraft d = draft();
    d.port = port;
    return new ServerConfig(d);
  }

  /**
   * This configuration on the Redis server at {@code uri} ({@code --redis}): the engine becomes
   * Redis with this one URI (no cluster); the other Redis options of the file (credentials,
   * database, timeouts, scripts, time) and {@code onFailure} are kept.
   *
   * @throws IllegalArgumentException unless {@code uri} is a {@code redis://} or
   *     {@code rediss://} URI
   */
  public ServerConfig withRedisUri(String uri) {
    return withEngines(uri, null, false);
  }

  /**
   * This configuration on the engines of the command line ({@code --redis}, {@code --etcd},
   * {@code --fallback local}). {@code redisUri} (one server) and {@code etcdEndpoints}, each
   * null when not given, replace the file's engine or chain; {@code fallbackLocal} appends the
   * in-process engine, to the file's engines when neither is given. Two engines or more make a
   * failover chain in the order redis, etcd, local. The file's options of each engine, its
   * {@code engine.failover} block and {@code engine.onFailure} are kept.
   *
   * @throws IllegalArgumentException naming the option, unless {@code redisUri} is a
   *     {@code redis://} or {@code rediss://} URI and each of {@code etcdEndpoints} (at least
   *     one) an {@code http://host:port} URL
   */
  public ServerConfig withEngines(String redisUri, List<String> etcdEndpoints,
      boolean fallbackLocal) {
    if (redisUri != null) {
      String problem = EngineReader.redisUriProblem(redisUri); // the file's rule
      if (problem != null) {
        throw new IllegalArgumentException("redis (--redis): " + problem);
      }
    }
    if (etcdEndpoints != null) {
      if (etcdEndpoints.isEmpty()) {
        throw new IllegalArgumentException("etcd (--etcd) must name at least one URL, e.g."
            + " http://127.0.0.1:2379");
      }
      for (int i = 0; i < etcdEndpoints.size(); i++) {
        String url = etcdEndpoints.get(i);
        String problem = url == null ? "must be http://host:port, was null"
            : EtcdReader.endpointProblem(url);
        if (problem != null) {
          throw new IllegalArgumentException("etcd (--etcd) URL " + (i + 1) + " " + problem);
        }
      }
    }
    ConfigDraft d = draft();
    d.engine = engine.withEngines(redisUri, etcdEndpoints, fallbackLocal);
    return new ServerConfig(d);
  }

  /**
   * This configuration also accepting {@code tokens} ({@code --token-file}), after its own.
   *
   * @throws IllegalArgumentException if {@code tokens} is null or empty, or a token is not 16
   *     to 512 visible ASCII characters with no spaces (the message gives its index, not it)
   */
  public ServerConfig withTokens(List<String> tokens) {
    if (tokens == null || tokens.isEmpty()) {
      throw new IllegalArgumentException("tokens (--token-file) must hold at least one token, was "
          + (tokens == null ? "null" : "empty"));
    }
    for (int i = 0; i < tokens.size(); i++) {
      String problem = Tokens.problem(tokens.get(i));
      if (problem != null) {
        throw new IllegalArgumentException("tokens[" + i + "] (--token-file) " + problem);
      }
    }
    ConfigDraft d = draft();
    d.tokens.addAll(tokens);
    return new ServerConfig(d);
  }

  private ConfigDraft draft() {
    ConfigDraft d = new ConfigDraft();
    d.host = host;
    d.port = port;
    d.maxBodyBytes = maxBodyBytes;
    d.maxKeyLength = maxKeyLength;
    d.maxBatch = maxBatch;
    d.topKeys = topKeys;
    d.shutdownTimeout = shutdownTimeout;
    d.tokens = new ArrayList<>(tokens);
    d.engine = engine;
    d.limiters.putAll(limiters);
    d.shadowLimiters = shadowLimiters;
    d.counters.putAll(counters);
    d.stats.putAll(stats);
    d.source = source;
    d.grpcPort = grpcPort;
    d.rlsConfig = rlsConfig;
    d.rlsReloadInterval = rlsReloadInterval;
    d.rlqsPort = rlqsPort;
    d.rlqsConfig = rlqsConfig;
    d.file = file;
    d.reloadInterval = reloadInterval;
    d.otlpEndpoint = otlpEndpoint;
    d.samplingRatio = samplingRatio;
    return d;
  }

  /** A summary without secrets: tokens are counted, never shown. */
  @Override
  public String toString() {
    return "ServerConfig[" + host + ":" + port + ", engine " + engine.describe() + ", limiters "
        + limiters.keySet() + ", counters " + counters.keySet() + ", stats " + stats.keySet()
        + ", " + tokens.size() + " tokens" + (source == null ? "" : ", from " + source) + "]";
  }
}
