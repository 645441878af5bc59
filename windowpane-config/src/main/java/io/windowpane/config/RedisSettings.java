package io.windowpane.config;

import io.windowpane.redis.ScriptMode;
import java.time.Duration;
import java.util.List;

/**
 * The {@code engine.redis} block, validated. {@code uris} holds one URI for a standalone server,
 * the seeds for a cluster. {@code password} is the literal or the value of {@code passwordEnv};
 * {@link #toString()} leaves it out.
 */
public record RedisSettings(List<String> uris, boolean cluster, String username, String password,
    Integer database, Duration timeout, Duration connectTimeout, ScriptMode scripts,
    boolean clientTime) {

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** No server yet, every option at its default. */
  public static final RedisSettings DEFAULTS = new RedisSettings(List.of(), false, null, null, null,
      DEFAULT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, ScriptMode.AUTO, false);

  public RedisSettings {
    uris = List.copyOf(uris);
  }

  /** The same options for the single server at {@code uri}. */
  public RedisSettings withUri(String uri) {
    return new RedisSettings(List.of(uri), false, username, password, database, timeout,
        connectTimeout, scripts, clientTime);
  }

  @Override
  public String toString() {
    return "RedisSettings[uris=" + EngineConfig.redacted(uris) + ", cluster=" + cluster
        + ", username=" + username + ", password=" + (password == null ? "none" : "(set)")
        + ", database=" + database + ", timeout=" + timeout + ", connectTimeout="
        + connectTimeout + ", scripts=" + scripts + ", clientTime=" + clientTime + "]";
  }
}
