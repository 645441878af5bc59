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
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the adaptive-window tests share, as a JUnit 5 extension (register it on a static field):
 * a redis-server of its own per test class, engines on it and on one manual clock set back to
 * {@link #T0} before each test, and memory pressure made the real way, by lowering the server's
 * {@code maxmemory} until every engine's guard reads WARN (INFO, the guard's level, the calls'
 * '~' flag), lifted by setting it back to 0. After each test: pressure lifted, the server
 * emptied. Also usable by hand ({@link #start()}, {@link #close()}).
 */
final class AdaptiveFixture implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback,
    AfterAllCallback, AutoCloseable {

  static final long W = 64_000;
  static final int P = 64; // r = 1 s; levels 64, 32, 16, 8
  static final WindowSpec ADAPTIVE = WindowSpec.panes(Duration.ofMillis(W), P).withAdaptive(8);
  static final WindowSpec PLAIN = ADAPTIVE.withoutAdaptive();
  static final long T0 = ConformanceBase.REALISTIC + 123;

  final ManualClock clock = ManualClock.at(T0);
  private final Supplier<RedisServer> server;
  private final ScriptMode scripts;
  private final List<RedisEngine> engines = new ArrayList<>();
  private RedisServer redis;
  RespClient admin;

  /** On a Redis 7 server through Functions (or what AUTO picks). */
  AdaptiveFixture() {
    this(RedisServer::start, ScriptMode.AUTO);
  }

  AdaptiveFixture(Supplier<RedisServer> server, ScriptMode scripts) {
    this.server = server;
    this.scripts = scripts;
  }

  /** Starts the server; returns this. */
  AdaptiveFixture start() {
    redis = server.get();
    admin = redis.client();
    return this;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    start();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    clock.set(T0);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    engines.clear(); // closed by the tests' windowpanes
    admin.command("CONFIG", "SET", "maxmemory", "0");
    admin.command("FLUSHALL");
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  /** A new engine on the server and the clock; its guard reads memory when told (pressure). */
  RedisEngine engine() {
    RedisEngine engine = TestEngines.builder(redis).clock(clock).scripts(scripts)
        .expiryGrace(TestEngines.TEST_GRACE).memoryCheckInterval(Duration.ofMinutes(1)).build();
    engines.add(engine);
    return engine;
  }

  /** A windowpane on a new engine; the test closes it. */
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

  /** Stops the server. */
  @Override
  public void close() {
    admin.close();
    redis.close();
  }
}
