package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Lock mode (a Redis lock around plain sorted-set commands per operation) on a real
 * redis-server, against every part of the conformance suite. Its concurrency part runs 25
 * operations per thread per phase instead of 2,000: each operation is several round trips under
 * a lock that 8 threads contend for (about 7 ms per operation), so even 100 took 340 s of the
 * test command; the totals are still checked exactly, with every thread contending.
 */
@ExtendWith(RedisServerExtension.class)
class RedisLockModeConformanceIT extends RedisConformanceSuite {

  private final RedisServer redis;

  RedisLockModeConformanceIT(RedisServer redis) {
    this.redis = redis;
  }

  @Override
  protected Windowpane open(ManualClock clock) {
    return TestEngines.lockMode(redis, clock);
  }

  @Override
  protected int concurrencyOperationsPerPhase() {
    return 25;
  }
}
