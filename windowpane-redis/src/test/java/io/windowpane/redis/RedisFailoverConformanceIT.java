package io.windowpane.redis;

import io.windowpane.Failover;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A healthy failover chain (Redis on a real redis-server, then the local engine) against every
 * part of the conformance suite: the chain must be invisible while its primary is healthy.
 * Its thread is off (probes run only when asked), so the manual clock alone drives time, and the
 * call timeout is long, so no call is handed to the fallback.
 */
@ExtendWith(RedisServerExtension.class)
class RedisFailoverConformanceIT extends RedisConformanceSuite {

  private final RedisServer redis;

  RedisFailoverConformanceIT(RedisServer redis) {
    this.redis = redis;
  }

  /** The chain adds nothing to contend on: a quarter of the plain engine's operations suffice. */
  @Override
  protected int concurrencyOperationsPerPhase() {
    return 500;
  }

  @Override
  protected Windowpane open(ManualClock clock) {
    return Windowpane.using(Failover.chain(
            RedisEngine.builder().uri(redis.uri()).clock(clock)
                .expiryGrace(TestEngines.TEST_GRACE).build(),
            Windowpane.localBuilder().clock(clock).buildEngine())
        // a healthy chain stays healthy: the concurrency part's bursts on a loaded machine may
        // pass the default 100 ms call timeout, which would rightly hand calls to the fallback
        .callTimeout(Duration.ofSeconds(30)).clock(clock).background(false).build());
  }
}
