package io.windowpane.config;

import io.windowpane.Windowpane;
import io.windowpane.spi.Engine;
import io.windowpane.spi.EngineSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * The {@code engine} section: which engine serves the windows (one, or a failover chain of
 * several in order of preference), how to reach each, and what a rate limit answers when none
 * can. Immutable and thread-safe; validated when read, so {@link #open()} fails only where a
 * backend itself does (Redis not reachable, refused credentials) or where the module of a named
 * engine (windowpane-redis, windowpane-etcd) is not on the class path: reading needs neither.
 *
 * <p>Options of an engine that is not used keep their defaults (Redis: 1 s timeout, 2 s connect
 * timeout, {@code auto} scripts, server time; etcd: 5 s and 2 s, namespace {@code windowpane})
 * and empty values. Nothing here ever prints a password: {@link #describe()} and
 * {@link #toString()} strip credentials.
 */
public final class EngineConfig {

  /** An engine. */
  public enum Kind {
    /** In-process: state lives and dies with this server. */
    LOCAL,
    /** Redis (standalone or cluster): state shared by every server using the same Redis. */
    REDIS,
    /** etcd: strongly consistent state shared by every server using the same etcd cluster. */
    ETCD;

    /** The name in the configuration and in decisions: local, redis, etcd. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * What {@code acquire} answers when the backend fails or times out: for a single engine the
   * service's own answer, for a chain the library's last resort
   * ({@link io.windowpane.OnFailure}) when no member answers.
   */
  public enum OnFailure {
    /** 503 {@code backend_unavailable} (the default). */
    ERROR,
    /** Allowed, marked degraded (fail-open). */
    ALLOW,
    /** Denied, marked degraded (fail-closed). */
    DENY
  }

  private static final EngineConfig LOCAL = new EngineConfig(List.of(Kind.LOCAL), false,
      OnFailure.ERROR, null, RedisSettings.DEFAULTS, EtcdSettings.DEFAULTS,
      FailoverOptions.DEFAULTS);

  private final List<Kind> engines;
  private final boolean chain;
  private final OnFailure onFailure;
  private final Long localMaxKeys;
  private final RedisSettings redis;
  private final EtcdSettings etcd;
  private final FailoverOptions failover;

  EngineConfig(List<Kind> engines, boolean chain, OnFailure onFailure, Long localMaxKeys,
      RedisSettings redis, EtcdSettings etcd, FailoverOptions failover) {
    this.engines = List.copyOf(engines);
    this.chain = chain;
    this.onFailure = onFailure;
    this.localMaxKeys = localMaxKeys;
    this.redis = redis;
    this.etcd = etcd;
    this.failover = failover;
  }

  /** The local engine with its defaults. */
  public static EngineConfig local() {
    return LOCAL;
  }

  /** This configuration switched to the single Redis server at {@code uri}, other options kept. */
  public EngineConfig withRedisUri(String uri) {
    return withEngines(uri, null, false);
  }

  /**
   * This configuration with the engines of the command line: {@code redisUri} (one server)
   * and {@code etcdEndpoints}, each null when not given, replace the file's engine or chain;
   * {@code fallbackLocal} appends the in-process engine (to the file's engines when neither
   * is given). More than one engine makes a chain, in the order redis, etcd, local; the
   * file's options of each engine, its {@code failover} block and {@code onFailure} are kept.
   */
  public EngineConfig withEngines(String redisUri, List<String> etcdEndpoints, boolean fallbackLocal) {
    List<Kind> members = new ArrayList<>();
    RedisSettings r = redis;
    EtcdSettings e = etcd;
    if (redisUri != null) {
      members.add(Kind.REDIS);
      r = redis.withUri(redisUri);
    }
    if (etcdEndpoints != null) {
      members.add(Kind.ETCD);
      e = etcd.withEndpoints(etcdEndpoints);
    }
    boolean replaced = !members.isEmpty();
    if (!replaced) {
      members.addAll(engines);
    }
    if (fallbackLocal && !members.contains(Kind.LOCAL)) {
      members.add(Kind.LOCAL);
    }
    boolean isChain = members.size() > 1 || (!replaced && chain);
    return new EngineConfig(members, isChain, onFailure, localMaxKeys, r, e, failover);
  }

  /** The single engine, or the first (preferred) member of a chain. */
  public Kind kind() {
    return engines.get(0);
  }

  /** The engines in order of preference: the single one, or the chain's 1 to 3 members. */
  public List<Kind> engines() {
    return engines;
  }

  /**
   * Whether the engines form a failover chain ({@code engine.chain}, or several engine flags):
   * then the library's {@link io.windowpane.Failover} answers from the first healthy member.
   */
  public boolean chain() {
    return chain;
  }

  /** What acquire answers when the backend fails ({@code engine.onFailure}, default error). */
  public OnFailure onFailure() {
    return onFailure;
  }

  /** {@code engine.local.maxKeys}; empty for the library's default or without a local engine. */
  public OptionalLong localMaxKeys() {
    return localMaxKeys == null || !engines.contains(Kind.LOCAL) ? OptionalLong.empty()
        : OptionalLong.of(localMaxKeys);
  }

  /** The server URI (one), or the cluster's seed URIs; empty without a Redis engine. */
  public List<String> redisUris() {
    return redis.uris();
  }

  /** Whether {@link #redisUris()} are the seeds of a Redis Cluster. */
  boolean redisCluster() {
    return redis.cluster();
  }

  /** The ACL user, when given. */
  Optional<String> redisUsername() {
    return Optional.ofNullable(redis.username());
  }

  /** The password: the literal {@code password}, or the value of {@code passwordEnv}. */
  Optional<String> redisPassword() {
    return Optional.ofNullable(redis.password());
  }

  /** The database number of a standalone server, when given. */
  OptionalInt redisDatabase() {
    return redis.database() == null ? OptionalInt.empty() : OptionalInt.of(redis.database());
  }

  /** How long a call waits for Redis (default 1 s). */
  Duration redisTimeout() {
    return redis.timeout();
  }

  /** How long connecting may take (default 2 s). */
  Duration redisConnectTimeout() {
    return redis.connectTimeout();
  }

  /** How the server-side code runs (default {@code auto}). */
  RedisSettings.Scripts redisScripts() {
    return redis.scripts();
  }

  /** Whether the functions get the client's skew-corrected clock ({@code time: client}). */
  boolean redisClientTime() {
    return redis.clientTime();
  }

  /** The etcd members' client URLs; empty without an etcd engine. */
  public List<String> etcdEndpoints() {
    return etcd.endpoints();
  }

  /**
   * The options of {@code kind} (redis or etcd) as its {@link io.windowpane.spi.EngineProvider}
   * receives them when the engine is opened: the block's values under the block's names, an
   * option not given left out. Given whether or not {@code kind} is used (then its defaults).
   *
   * @throws IllegalArgumentException for {@link Kind#LOCAL}, which is built in
   */
  public EngineSettings engineSettings(Kind kind) {
    switch (kind) {
      case REDIS:
        return redis.engineSettings();
      case ETCD:
        return etcd.engineSettings();
      default:
        throw new IllegalArgumentException("kind must be redis or etcd (local is built in and"
            + " takes no provider), was " + kind.label());
    }
  }

  /** The {@code engine.etcd} block. */
  EtcdSettings etcd() {
    return etcd;
  }

  /** The {@code engine.failover} block (its defaults when absent). */
  FailoverOptions failover() {
    return failover;
  }

  /** The {@code engine.redis} block. */
  RedisSettings redis() {
    return redis;
  }

  /**
   * Builds the engine and wraps it for use: {@code Windowpane.using(openEngine())}. The caller
   * closes it.
   *
   * @throws RuntimeException as {@link #openEngine()}, a missing engine module included
   */
  public Windowpane open() {
    return Windowpane.using(openEngine());
  }

  /**
   * Builds the engine: the in-process engine with {@code maxKeys} when set, the Redis or etcd
   * engine with every option above (Redis connects and loads its function library here), or
   * for a chain an {@link io.windowpane.Failover} over each of them with the {@code failover}
   * options and {@code onFailure} as its last resort; a chain's Redis or etcd member that cannot
   * be reached starts DOWN and joins once it answers (the chain starts on its fallback). Redis
   * and etcd come from their modules, windowpane-redis and windowpane-etcd, found on the class
   * path here ({@link io.windowpane.spi.EngineProvider}). The caller closes it.
   *
   * @throws IllegalStateException when a Redis or etcd engine is named and its module is not on
   *     the class path, naming the module to add
   * @throws RuntimeException whatever an engine builder throws (a single Redis that cannot be
   *     reached fails here, with the cause attached); members already built are closed
   */
  public Engine openEngine() {
    return EngineOpener.serviceLoader().open(this);
  }

  /**
   * One line for banners and logs, without credentials: {@code local},
   * {@code redis redis://10.0.0.1:6379}, {@code redis cluster redis://a:7000,redis://b:7000},
   * {@code etcd http://10.0.0.2:2379}, or for a chain its members in order:
   * {@code chain redis redis://10.0.0.1:6379 -> local}.
   */
  public String describe() {
    if (chain) {
      return "chain " + engines.stream().map(this::describe).collect(Collectors.joining(" -> "));
    }
    return describe(kind());
  }

  private String describe(Kind k) {
    switch (k) {
      case REDIS:
        return "redis " + (redis.cluster() ? "cluster " : "") + redacted(redis.uris());
      case ETCD:
        return "etcd " + redacted(etcd.endpoints());
      default:
        return "local";
    }
  }

  @Override
  public String toString() {
    return "EngineConfig[" + describe() + ", onFailure "
        + onFailure.name().toLowerCase(Locale.ROOT)
        + (localMaxKeys().isEmpty() ? "" : ", maxKeys " + localMaxKeys) + "]";
  }

  /** The URIs joined with commas, each without user-info, query or fragment. */
  static String redacted(List<String> uris) {
    return uris.stream().map(EngineConfig::redacted).collect(Collectors.joining(","));
  }

  /**
   * {@code uri} without user-info ({@code user:password@}), query or fragment. Everything up to
   * the last {@code @} goes, so a password holding {@code ?}, {@code #} or {@code /} cannot leak.
   */
  static String redacted(String uri) {
    int scheme = uri.indexOf("://");
    int start = scheme < 0 ? 0 : scheme + 3;
    int at = uri.lastIndexOf('@');
    String rest = uri.substring(Math.max(start, at + 1));
    for (char c : new char[] {'?', '#'}) {
      int i = rest.indexOf(c);
      if (i >= 0) {
        rest = rest.substring(0, i);
      }
    }
    return uri.substring(0, start) + rest;
  }
}
