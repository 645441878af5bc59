package io.windowpane.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.spi.DeferredEngine;
import io.windowpane.spi.Engine;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Windowpane.reconfigure through a failover chain: each member keeps its counts (an in-process
 * member at its fleet share of the new permits), and a member that connects after the change
 * decides with the new permits. Manual clock, no chain thread. (Replay across a change: the
 * Redis chain IT.)
 */
class ChainReconfigureTest {

  private static final WindowSpec TEN_SECONDS = WindowSpec.panes(Duration.ofSeconds(10), 10);

  private final ManualClock clock = ManualClock.at(1_700_000_000_003L);
  private Windowpane wp;

  @AfterEach
  void close() {
    if (wp != null) {
      wp.close();
    }
  }

  private static Quota quota(long permits) {
    return Quota.of(Limit.of(permits, TEN_SECONDS));
  }

  private Failover.Builder chain(Engine first) {
    return Failover.chain(first, Windowpane.localBuilder().clock(clock).buildEngine())
        .clock(clock).background(false).callTimeout(Duration.ofMillis(200))
        .latencyThreshold(Duration.ofSeconds(5));
  }

  @Test
  void primaryAndFallback_keepTheirCounts_underTheNewPermits() throws Exception {
    AtomicBoolean reachable = new AtomicBoolean();
    Engine remote = Windowpane.localBuilder().clock(clock).buildEngine();
    DeferredEngine primary = DeferredEngine.connecting("redis", false, true, () -> {
      if (!reachable.get()) {
        throw new io.windowpane.WindowpaneException("cannot connect to Redis at 127.0.0.1:1");
      }
      return remote;
    });
    Failover failover = chain(primary).fleetShare(0.5).build();
    wp = Windowpane.using(failover);
    RateLimiter api = wp.limiter("api", quota(20));

    // the primary is down: the fallback decides, at its share (10 of 20)
    Decision d = api.tryAcquire("u", 6);
    assertThat(d.engine()).contains("local");
    wp.reconfigure("api", quota(10)); // the fallback's share is 5 now: 6 are counted there
    Decision denied = api.tryAcquire("u");
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.deniedBy().orElseThrow()).as("the caller's limit, not the share")
        .isEqualTo(Limit.of(10, TEN_SECONDS));

    reachable.set(true);
    long deadline = System.nanoTime() + 10_000_000_000L; // bounded wait on the background connect
    while (!primary.connected() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(primary.connected()).isTrue();
    failover.checkNow();
    failover.checkNow();
    assertThat(failover.status().get(0).health()).isEqualTo(Health.UP);

    // the primary's store is built now, for the new permits; it keeps its counts in turn
    Decision first = api.tryAcquire("v", 6);
    assertThat(first.engine()).contains("redis");
    assertThat(first.remaining()).isEqualTo(4);
    wp.reconfigure("api", quota(5));
    assertThat(api.tryAcquire("v").allowed()).isFalse();
    wp.reconfigure("api", quota(12));
    Decision raised = api.tryAcquire("v", 6);
    assertThat(raised.allowed()).isTrue();
    assertThat(raised.remaining()).isZero();
    assertThat(api.tryAcquire("v").allowed()).isFalse();
  }
}
