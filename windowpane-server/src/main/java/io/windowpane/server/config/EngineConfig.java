package io.windowpane.server.config;

import io.windowpane.Windowpane;
import io.windowpane.redis.RedisEngine;
import io.windowpane.redis.ScriptMode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * The {@code engine} section: which engine serves the windows, how to reach it, and what a rate
 * limit answers when it cannot be reached. Immutable and thread-safe; validated when read, so
 * {@link #open()} fails only where the backend itself does (Redis not reachable, refused
 * credentials).
 *
 * <p>Redis options ({@code redis...()}) keep their defaults (1 s timeout, 2 s connect timeout,
 * {@code auto} scripts, server time) and empty values when the engine is local. Nothing here
 * ever prints the password: {@link #describe()} and {@link #toString()} strip credentials.
 */
public final class EngineConfig {

  /** The engine. */
  public enum Kind {
    /** In-process: state lives and dies with this server. */
    LOCAL,
    /** Redis (standalone or cluster): state shared by every server using the same Redis. */
    REDIS
  }

  /** What {@code acquire} answers when the backend fails or times out. */
  public enum OnFailure {
    /** 503 {@code backend_unavailable} (the default). */
    ERROR,
    /** Allowed, marked degraded (fail-open). */
    ALLOW,
    /** Denied, marked degraded (fail-closed). */
    DENY
  }

  private static final EngineConfig LOCAL =
      new EngineConfig(Kind.LOCAL, OnFailure.ERROR, null, RedisSettings.DEFAULTS);

  private final Kind kind;
  private final OnFailure onFailure;
  private final Long localMaxKeys;
  private final RedisSettings redis;

  EngineConfig(Kind kind, OnFailure onFailure, Long localMaxKeys, RedisSettings redis) {
    this.kind = kind;
    this.onFailure = onFailure;
    this.localMaxKeys = localMaxKeys;
    this.redis = redis;
  }

  /** The local engine with its defaults. */
  static EngineConfig local() {
    return LOCAL;
  }

  /** This configuration switched to the single Redis server at {@code uri}, other options kept. */
  EngineConfig withRedisUri(String uri) {
    return new EngineConfig(Kind.REDIS, onFailure, null, redis.withUri(uri));
  }

  /** The engine kind. */
  public Kind kind() {
    return kind;
  }

  /** What acquire answers when the backend fails ({@code engine.onFailure}, default error). */
  public OnFailure onFailure() {
    return onFailure;
  }

  /** {@code engine.local.maxKeys}; empty for the library's default (or a Redis engine). */
  public OptionalLong localMaxKeys() {
    return localMaxKeys == null ? OptionalLong.empty() : OptionalLong.of(localMaxKeys);
  }

  /** The server URI (one), or the cluster's seed URIs; empty for the local engine. */
  public List<String> redisUris() {
    return redis.uris();
  }

  /** Whether {@link #redisUris()} are the seeds of a Redis Cluster. */
  public boolean redisCluster() {
    return redis.cluster();
  }

  /** The ACL user, when given. */
  public Optional<String> redisUsername() {
    return Optional.ofNullable(redis.username());
  }

  /** The password: the literal {@code password}, or the value of {@code passwordEnv}. */
  public Optional<String> redisPassword() {
    return Optional.ofNullable(redis.password());
  }

  /** The database number of a standalone server, when given. */
  public OptionalInt redisDatabase() {
    return redis.database() == null ? OptionalInt.empty() : OptionalInt.of(redis.database());
  }

  /** How long a call waits for Redis (default 1 s). */
  public Duration redisTimeout() {
    return redis.timeout();
  }

  /** How long connecting may take (default 2 s). */
  public Duration redisConnectTimeout() {
    return redis.connectTimeout();
  }

  /** How the server-side code runs (default {@link ScriptMode#AUTO}). */
  public ScriptMode redisScripts() {
    return redis.scripts();
  }

  /** Whether the functions get the client's skew-corrected clock ({@code time: client}). */
  public boolean redisClientTime() {
    return redis.clientTime();
  }

  /**
   * Builds the engine: {@link Windowpane#localBuilder()} with {@code maxKeys} when set, or
   * {@link Windowpane#using} a {@link RedisEngine} with every option above, which connects and
   * loads the function library. The caller closes it.
   *
   * @throws RuntimeException whatever the engine builder throws (a Redis that cannot be reached
   *     fails here, with the cause attached)
   */
  public Windowpane open() {
    if (kind == Kind.LOCAL) {
      Windowpane.LocalBuilder local = Windowpane.localBuilder();
      if (localMaxKeys != null) {
        local.maxKeys(localMaxKeys);
      }
      return local.build();
    }
    RedisEngine.Builder b = RedisEngine.builder();
    if (redis.cluster()) {
      b.cluster(redis.uris().toArray(new String[0]));
    } else {
      b.uri(redis.uris().get(0));
    }
    if (redis.username() != null) {
      b.username(redis.username());
    }
    if (redis.password() != null) {
      b.password(redis.password());
    }
    if (redis.database() != null) {
      b.database(redis.database());
    }
    b.timeout(redis.timeout()).connectTimeout(redis.connectTimeout()).scripts(redis.scripts());
    if (redis.clientTime()) {
      b.clientTime();
    }
    return Windowpane.using(b.build());
  }

  /**
   * One line for banners and logs, without credentials: {@code local},
   * {@code redis redis://10.0.0.1:6379} or {@code redis cluster redis://a:7000,redis://b:7000}.
   */
  public String describe() {
    if (kind == Kind.LOCAL) {
      return "local";
    }
    return "redis " + (redis.cluster() ? "cluster " : "") + redacted(redis.uris());
  }

  @Override
  public String toString() {
    return "EngineConfig[" + describe() + ", onFailure " + onFailure.name().toLowerCase()
        + (localMaxKeys == null ? "" : ", maxKeys " + localMaxKeys) + "]";
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
