package io.windowpane.redis.internal;

import io.windowpane.redis.RedisEngine;
import io.windowpane.redis.ScriptMode;
import io.windowpane.spi.BuilderEngineProvider;
import io.windowpane.spi.EngineSettings;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The Redis engine for windowpane-config (the service's {@code engine.redis} block, the starter's
 * {@code windowpane.engine.redis.*}), registered in
 * {@code META-INF/services/io.windowpane.spi.EngineProvider}. Takes the block's options under
 * their names: {@code uri} (one server) or {@code cluster} (seed URIs), {@code username},
 * {@code password}, {@code database} (integer), {@code timeout} and {@code connectTimeout}
 * (durations), {@code scripts} ({@code auto}, {@code functions}, {@code evalsha}) and
 * {@code time} ({@code server}, {@code client}); an option left out keeps the builder's
 * default. An option it does not know is refused, so the configuration and the engine cannot
 * drift apart unnoticed.
 */
public final class RedisEngineProvider extends BuilderEngineProvider<RedisEngine.Builder> {

  private static final Set<String> OPTIONS = Set.of("uri", "cluster", "username", "password",
      "database", "timeout", "connectTimeout", "scripts", "time");

  public RedisEngineProvider() {
    super("redis", OPTIONS, RedisEngine.Builder::build, RedisEngine.Builder::buildDeferred);
  }

  @Override
  protected RedisEngine.Builder configure(EngineSettings settings) {
    RedisEngine.Builder b = RedisEngine.builder();
    List<String> seeds = settings.texts("cluster");
    if (!seeds.isEmpty()) {
      b.cluster(seeds.toArray(new String[0]));
    } else {
      b.uri(settings.text("uri").orElseThrow(() -> new IllegalArgumentException(
          "redis needs a uri (one server) or cluster (seed URIs)")));
    }
    settings.text("username").ifPresent(b::username);
    settings.text("password").ifPresent(b::password);
    settings.integer("database").ifPresent(b::database);
    settings.duration("timeout").ifPresent(b::timeout);
    settings.duration("connectTimeout").ifPresent(b::connectTimeout);
    settings.text("scripts").ifPresent(s -> b.scripts(scripts(s)));
    String time = settings.text("time").orElse("server");
    switch (time) {
      case "server":
        b.serverTime();
        break;
      case "client":
        b.clientTime();
        break;
      default:
        throw new IllegalArgumentException("redis option time must be server or client, was "
            + time);
    }
    return b;
  }

  private static ScriptMode scripts(String name) {
    for (ScriptMode mode : ScriptMode.values()) {
      if (mode.name().toLowerCase(Locale.ROOT).equals(name)) {
        return mode;
      }
    }
    throw new IllegalArgumentException("redis option scripts must be auto, functions or"
        + " evalsha, was " + name);
  }
}
