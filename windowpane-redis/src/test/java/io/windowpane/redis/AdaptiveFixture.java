package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.MemoryStatus.Level;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the adaptive-window tests share: engines on one redis-server and one manual clock, and
 * memory pressure made the real way, by lowering the server's {@code maxmemory} until every
 * engine's guard reads WARN (INFO, the guard's level, the calls' '~' flag), lifted by setting it
 * back to 0.
 */
final class AdaptiveFixture implements AutoCloseable {

  static final long W = 64_000;
  static final int P = 64; // r = 1 s; levels 64, 32, 16, 8
  static final WindowSpec ADAPTIVE = WindowSpec.panes(Duration.ofMillis(W), P).withAdaptive(8);
  static final WindowSpec PLAIN = ADAPTIVE.withoutAdaptive();
  static final long T0 = ConformanceBase.REALISTIC + 123;

  final ManualClock clock = ManualClock.at(T0);
  final RespClient admin;
  private final RedisServer redis;
  private final ScriptMode scripts;
  private final List<RedisEngine> engines = new ArrayList<>();

  AdaptiveFixture(RedisServer redis, ScriptMode scripts) {
    this.redis = redis;
    this.scripts = scripts;
    this.admin = redis.client();
  }

  /** A new engine on the server and the clock; its guard reads memory when told (pressure). */
  RedisEngine engine() {
    RedisEngine engine = TestEngines.builder(redis).clock(clock).scripts(scripts)
        .expiryGrace(TestEngines.TEST_GRACE).memoryCheckInterval(Duration.ofMinutes(1)).build();
    engines.add(engine);
    return engine;
  }

  Windowpane windowpane() {
    return Windowpane.using(engine());
  }

  /** Memory pressure on (WARN: used memory at 78% of maxmemory) or off, read by every engine. */
  void pressure(boolean on) {
    long max = on ? (long) (usedMemory() / 0.78) : 0;
    admin.command("CONFIG", "SET", "maxmemory", Long.toString(max));
    for (RedisEngine engine : engines) {
      assertThat(engine.checkMemory().orElseThrow().toCompletableFuture().join().level())
          .isEqualTo(on ? Level.WARN : Level.NORMAL);
    }
  }

  private long usedMemory() {
    for (String line : ((String) admin.command("INFO", "memory")).split("\r?\n")) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    throw new AssertionError("used_memory missing from INFO memory");
  }

  /** The key's coarsening factor: 1, or k from its format field '1x<k>'. */
  int factor(String key) {
    Object v = admin.command("HGET", key, "v");
    return v == null || "1".equals(v) ? 1 : Integer.parseInt(((String) v).substring(2));
  }

  /** The key's bytes, every element counted. */
  long memory(String key) {
    return (Long) admin.command("MEMORY", "USAGE", key, "SAMPLES", "0");
  }

  static String counterKey(String name, String key) {
    return "wp1:c:{" + name + ":" + key + ":" + name.length() + "}:p" + W + "/" + P;
  }

  /** Lifts the pressure and empties the server for the next test. */
  @Override
  public void close() {
    admin.command("CONFIG", "SET", "maxmemory", "0");
    admin.command("FLUSHALL");
    admin.close();
  }
}
