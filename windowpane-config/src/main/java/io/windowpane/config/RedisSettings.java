package io.windowpane.config;

import io.windowpane.spi.EngineSettings;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The {@code engine.redis} block, validated. {@code uris} holds one URI for a standalone server,
 * the seeds for a cluster. {@code password} is the literal or the value of {@code passwordEnv};
 * {@link #toString()} leaves it out. Plain values only: the Redis engine's provider (module
 * windowpane-redis) turns {@link #engineSettings()} into its builder.
 */
record RedisSettings(List<String> uris, boolean cluster, String username, String password,
    Integer database, Duration timeout, Duration connectTimeout, Scripts scripts,
    boolean clientTime, RedisMemoryGuard memoryGuard) {

  /** {@code scripts}: how the server-side code runs (the engine's {@code ScriptMode}). */
  enum Scripts {
    /** Functions where the server has them (Redis 7+), else EVALSHA. */
    AUTO,
    /** {@code FCALL} into the function library. */
    FUNCTIONS,
    /** {@code EVALSHA} of the same Lua (Redis 6). */
    EVALSHA;

    /** The name in the configuration: auto, functions, evalsha. */
    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** No server yet, every option at its default. */
  static final RedisSettings DEFAULTS = new RedisSettings(List.of(), false, null, null, null,
      DEFAULT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, Scripts.AUTO, false, RedisMemoryGuard.DEFAULTS);

  RedisSettings {
    uris = List.copyOf(uris);
  }

  /** The same options for the single server at {@code uri}. */
  RedisSettings withUri(String uri) {
    return new RedisSettings(List.of(uri), false, username, password, database, timeout,
        connectTimeout, scripts, clientTime, memoryGuard);
  }

  /**
   * The options for the provider, under the names of the block: {@code uri} (one server) or
   * {@code cluster} (the seeds), {@code username}, {@code password}, {@code database},
   * {@code timeout}, {@code connectTimeout}, {@code scripts} ({@code auto}, {@code functions} or
   * {@code evalsha}), {@code time} ({@code server} or {@code client}) and the memory guard's
   * ({@link RedisMemoryGuard#putInto}).
   */
  EngineSettings engineSettings() {
    EngineSettings.Builder s = EngineSettings.of("redis");
    if (cluster) {
      s.texts("cluster", uris);
    } else if (!uris.isEmpty()) {
      s.text("uri", uris.get(0));
    }
    memoryGuard.putInto(s);
    return s.text("username", username)
        .text("password", password)
        .integer("database", database)
        .duration("timeout", timeout)
        .duration("connectTimeout", connectTimeout)
        .text("scripts", scripts.label())
        .text("time", clientTime ? "client" : "server")
        .build();
  }

  @Override
  public String toString() {
    return "RedisSettings[uris=" + EngineConfig.redacted(uris) + ", cluster=" + cluster
        + ", username=" + username + ", password=" + (password == null ? "none" : "(set)")
        + ", database=" + database + ", timeout=" + timeout + ", connectTimeout="
        + connectTimeout + ", scripts=" + scripts + ", clientTime=" + clientTime
        + ", memoryGuard=" + memoryGuard + "]";
  }
}
