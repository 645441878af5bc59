package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisServer;
import java.time.Duration;

/** Engines on the testkit's Redis fixtures whose calls carry a manual clock's time. */
final class TestEngines {

  /** Manual clocks stand still while real time runs: keep keys physically while tests run. */
  static final Duration TEST_GRACE = Duration.ofMinutes(10);

  /**
   * The call timeout of engines in tests that check answers, not timeouts (10 s; the engine's
   * default is 1 s): on a machine loaded by other builds a handshake or a call can stall past a
   * second, which says nothing about the answer. FailuresIT and the fault tests keep their own.
   */
  static final Duration TEST_TIMEOUT = Duration.ofSeconds(10);

  private TestEngines() {}

  /**
   * Start instants for Redis: Lua numbers are doubles, so the engine supports times within
   * +-2^52 ms (about 142,000 years) instead of the whole long range.
   */
  static long[] startInstants() {
    return new long[] {ConformanceBase.REALISTIC + 123, ConformanceBase.REALISTIC, -5_017,
        (1L << 51) + 7, (1L << 52) - 400L * 24 * 3600 * 1000};
  }

  /** A builder on one {@code redis-server} with the tests' call timeout. */
  static RedisEngine.Builder builder(RedisServer redis) {
    return RedisEngine.builder().uri(redis.uri()).timeout(TEST_TIMEOUT);
  }

  /** An engine on one {@code redis-server}, running its functions the way {@code mode} says. */
  static Windowpane standalone(RedisServer redis, ManualClock clock, ScriptMode mode) {
    return Windowpane.using(RedisEngine.builder().uri(redis.uri()).scripts(mode).clock(clock)
        .expiryGrace(TEST_GRACE).timeout(TEST_TIMEOUT).build());
  }

  /** An engine through Functions on database {@code database} of one {@code redis-server}. */
  static RedisEngine redisEngine(RedisServer redis, ManualClock clock, int database) {
    return RedisEngine.builder().uri(redis.uri()).database(database)
        .scripts(ScriptMode.FUNCTIONS).clock(clock).expiryGrace(TEST_GRACE).timeout(TEST_TIMEOUT)
        .build();
  }

  /** An engine on a Redis Cluster. */
  static Windowpane cluster(RedisCluster cluster, ManualClock clock) {
    return Windowpane.using(RedisEngine.builder()
        .cluster(cluster.seedUris().toArray(new String[0]))
        .clock(clock).expiryGrace(TEST_GRACE).timeout(TEST_TIMEOUT).build());
  }
}
