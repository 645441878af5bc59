package io.windowpane.redis;

import io.windowpane.Failover;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.testkit.conformance.LimiterConformance;
import io.windowpane.testkit.leasing.LeasingScenarios;
import org.junit.jupiter.api.Nested;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A healthy failover chain (Redis on a real redis-server, then the local engine) against every
 * part of the conformance suite, leases and all-or-nothing included, and the limiter part again
 * with hot-key leasing on: the chain must be invisible while its primary is healthy. (Leasing's
 * exact totals under 8 threads are RedisLeasingConformanceIT's, on Redis itself: the chain adds
 * nothing to contend on; leases through a chain under load and a kill, RedisChainCompositionIT.)
 * Its thread is off (probes run only when asked), so the manual clock alone drives time, and the
 * call timeout is long, so no call is handed to the fallback.
 */
@ExtendWith(RedisServerExtension.class)
class RedisFailoverConformanceIT extends RedisConformanceSuite {

  private final RedisServer redis;

  RedisFailoverConformanceIT(RedisServer redis) {
    this.redis = redis;
  }

  /** The limiter parts again with hot-key leasing on every limiter, through the chain. */
  @Nested
  class LeasingLimiters extends LimiterConformance {
    @Override
    protected long[] startInstants() {
      return TestEngines.startInstants();
    }

    @Override
    protected boolean checksLeases() {
      return false; // the chain's whole suite above runs the Leases group
    }

    @Override
    protected Quota underTest(Quota quota, ManualClock clock) {
      return LeasingScenarios.leasing(quota, clock);
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return chain(clock);
    }
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return chain(clock);
  }

  private Windowpane chain(ManualClock clock) {
    return Windowpane.using(Failover.chain(
            RedisEngine.builder().uri(redis.uri()).clock(clock)
                .expiryGrace(TestEngines.TEST_GRACE).timeout(TestEngines.TEST_TIMEOUT).build(),
            Windowpane.localBuilder().clock(clock).buildEngine())
        // a healthy chain stays healthy: the concurrency part's bursts on a loaded machine may
        // pass the default 100 ms call timeout, which would rightly hand calls to the fallback
        .callTimeout(Duration.ofSeconds(30)).clock(clock).background(false).build());
  }
}
