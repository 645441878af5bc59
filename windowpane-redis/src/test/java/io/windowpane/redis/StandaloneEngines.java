package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.redis.RedisServer;
import java.time.Duration;

/** Engines on a testkit {@code redis-server} for the conformance suite. */
final class StandaloneEngines {

  /** Manual clocks stand still while real time runs: keep keys physically while tests run. */
  static final Duration TEST_GRACE = Duration.ofMinutes(10);

  private StandaloneEngines() {}

  /**
   * Start instants for Redis: Lua numbers are doubles, so the engine supports times within
   * +-2^52 ms (about 142,000 years) instead of the whole long range.
   */
  static long[] startInstants() {
    return new long[] {ConformanceBase.REALISTIC + 123, ConformanceBase.REALISTIC, -5_017,
        (1L << 51) + 7, (1L << 52) - 400L * 24 * 3600 * 1000};
  }

  /** An engine on {@code redis} whose calls carry {@code clock}'s time. */
  static Windowpane engine(RedisServer redis, ManualClock clock, ScriptMode mode) {
    return Windowpane.using(RedisEngine.builder().uri(redis.uri()).scripts(mode).clock(clock)
        .expiryGrace(TEST_GRACE).build());
  }
}
