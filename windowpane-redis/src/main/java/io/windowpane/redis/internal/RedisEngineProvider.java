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
 * {@code time} ({@code server}, {@code client}), and the memory guard's {@code memoryGuard}
 * ({@code on}, {@code off}), {@code memoryWarnPercent}, {@code memoryPressurePercent},
 * {@code memoryHysteresisPercent}, {@code memoryBudgetMb} (integers) and
 * {@code memoryCheckInterval} (a duration); an option left out keeps the builder's
 * default. An option it does not know is refused, so the configuration and the engine cannot
 * drift apart unnoticed.
 */
public final class RedisEngineProvider extends BuilderEngineProvider<RedisEngine.Builder> {

  private static final Set<String> OPTIONS = Set.of("uri", "cluster", "username", "password",
      "database", "timeout", "connectTimeout", "scripts", "time", "memoryGuard",
      "memoryWarnPercent", "memoryPressurePercent", "memoryHysteresisPercent", "memoryBudgetMb",
      "memoryCheckInterval");

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
    memoryGuard(settings, b);
    return b;
  }

  private static void memoryGuard(EngineSettings settings, RedisEngine.Builder b) {
    String on = settings.text("memoryGuard").orElse("on");
    if (!on.equals("on") && !on.equals("off")) {
      throw new IllegalArgumentException("redis option memoryGuard must be on or off, was " + on);
    }
    b.memoryGuard(on.equals("on"));
    if (settings.has("memoryWarnPercent") || settings.has("memoryPressurePercent")
        || settings.has("memoryHysteresisPercent")) {
      b.memoryLevels(settings.integer("memoryWarnPercent").orElse(70) / 100.0,
          settings.integer("memoryPressurePercent").orElse(85) / 100.0,
          settings.integer("memoryHysteresisPercent").orElse(5) / 100.0);
    }
    settings.integer("memoryBudgetMb").ifPresent(mb -> b.memoryBudget(mb * 1_048_576L));
    settings.duration("memoryCheckInterval").ifPresent(b::memoryCheckInterval);
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
