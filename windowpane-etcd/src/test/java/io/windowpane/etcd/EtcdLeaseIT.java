package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Lease and release on a real etcd ({@code lease}, {@code leaseAsync} and {@code releaseAsync}
 * of the SPI, what hot-key leasing and all-or-nothing requests build on): what is specific to
 * the etcd engine, beside the limiter conformance. A release takes permits back out of the pane
 * or log entry of the grant's time and no further, once per release id whichever process sends
 * it (ids live in the key's value, apart from replay ids), and changes nothing once the window
 * left that time; concurrent leases and releases of two engines on one key count exactly. The
 * clock is manual and starts on a whole minute ({@link WholeMinuteFixture}).
 */
@ExtendWith(EtcdServerExtension.class)
class EtcdLeaseIT extends WholeMinuteFixture {

  EtcdLeaseIT(EtcdServer etcd) {
    super(etcd, "lease");
  }

  private static void release(LimiterStore l, long permits, Grant g, String id) throws Exception {
    assertThat(await(l.releaseAsync("k", permits, g.atMillis(), id))).isNull();
  }

  @Test
  void lease_grantsTheLargestThatFitsEveryLimit_atTheKeysTime_asAnAcquireWould() {
    Limit perTenSeconds = Limit.of(10, WindowSpec.panes(TEN_SECONDS, 10));
    Limit perMinute = Limit.of(12, WindowSpec.log(Duration.ofMinutes(1)));
    LimiterStore l = engine.limiterStore(name, Quota.of(perTenSeconds, perMinute));
    at(1_000);
    assertThat(l.tryAcquire("k", 3)).isEqualTo(Decision.allowed(7));
    Grant g = l.lease("k", 2, 8).orElseThrow();
    assertThat(g).isEqualTo(new Grant(7, t0 + 1_000, Decision.allowed(0)));
    at(15_000); // the ten-second window is empty again, the minute holds 10 of 12
    g = l.lease("k", 1, 10).orElseThrow();
    assertThat(g).as("the minute limit bounds it").isEqualTo(
        new Grant(2, t0 + 15_000, Decision.allowed(0)));
    Decision denied = l.tryAcquire("k", 1);
    assertThat(denied.deniedBy()).contains(perMinute);
    assertThat(denied.retryAfterMillis()).as("the 10 of 1 s leave at 61 s").isEqualTo(46_000);
  }

  @Test
  void lease_belowItsMinimum_recordsNothing_andAnswersTheDenialOfTheMinimum() throws Exception {
    Limit perTenSeconds = Limit.of(10, WindowSpec.panes(TEN_SECONDS, 10));
    LimiterStore l = engine.limiterStore(name, Quota.of(perTenSeconds));
    at(2_500);
    assertThat(l.tryAcquire("k", 8).allowed()).isTrue();
    Grant refused = await(l.leaseAsync("k", 3, 5)).orElseThrow();
    assertThat(refused.permits()).isZero();
    assertThat(refused.decision()).as("pane 2 leaves at 12 s")
        .isEqualTo(Decision.denied(2, perTenSeconds, 9_500));
    assertThat(refused.decision()).isEqualTo(l.tryAcquire("k", 3));
    assertThat(l.lease("k", 2, 5).orElseThrow().permits()).as("nothing was recorded")
        .isEqualTo(2);
  }

  @Test
  void release_givesPermitsBackInThePaneOfTheGrant_andTheRestLeaveWithIt() throws Exception {
    LimiterStore l = engine.limiterStore(name,
        Quota.of(Limit.of(10, WindowSpec.panes(TEN_SECONDS, 10))));
    at(2_500);
    Grant g = l.lease("k", 1, 8).orElseThrow();
    at(8_000);
    assertThat(l.tryAcquire("k", 1)).isEqualTo(Decision.allowed(1));
    release(l, 5, g, "r1");
    assertThat(l.tryAcquire("k", 6)).as("3 of the grant kept, 1 acquired")
        .isEqualTo(Decision.allowed(0));
    at(12_000); // pane 2 left: the grant's 3 with it
    assertThat(l.tryAcquire("k", 3)).isEqualTo(Decision.allowed(0));
  }

  @Test
  void release_neverTakesMoreThanThePaneHolds_norFromOtherPanes() throws Exception {
    LimiterStore l = engine.limiterStore(name,
        Quota.of(Limit.of(10, WindowSpec.panes(TEN_SECONDS, 10))));
    at(1_000);
    Grant g = l.lease("k", 1, 4).orElseThrow();
    at(2_000);
    l.tryAcquire("k", 5);
    release(l, 9, g, "too-many"); // the caller's bug: more than the grant
    assertThat(l.lease("k", 1, 10).orElseThrow().permits()).as("pane 2 keeps its 5")
        .isEqualTo(5);
  }

  @Test
  void release_isOncePerId_sequentially_concurrently_andThroughAnotherEngine_apartFromReplays()
      throws Exception {
    LimiterStore l = engine.limiterStore(name,
        Quota.of(Limit.of(20, WindowSpec.panes(TEN_SECONDS, 10))));
    at(3_000);
    Grant g = l.lease("k", 20, 20).orElseThrow();
    release(l, 2, g, "a");
    release(l, 2, g, "a");
    List<CompletableFuture<Void>> together = new ArrayList<>();
    for (int i = 0; i < 8; i++) { // likely one transaction: the lane coalesces them
      together.add(l.releaseAsync("k", 3, g.atMillis(), "b").toCompletableFuture());
    }
    for (CompletableFuture<Void> f : together) {
      await(f);
    }
    LimiterStore other = open(ManualClock.at(t0 + 3_000)).limiterStore(name,
        Quota.of(Limit.of(20, WindowSpec.panes(TEN_SECONDS, 10))));
    release(other, 2, g, "a");
    assertThat(await(other.replayAsync("k", 1, g.atMillis(), "a"))).as("a replay id 'a'")
        .isNull();
    at(12_999); // within the key's expiry of the releases' landing, the grant's pane held
    release(l, 2, g, "b");
    assertThat(l.lease("k", 1, 20).orElseThrow().permits()).as("20 - 2 - 3 + 1 taken")
        .isEqualTo(4);
  }

  @Test
  void release_onceTheWindowLeftTheGrant_orOfAKeyWithoutState_changesNothing() throws Exception {
    Limit perTenSeconds = Limit.of(5, WindowSpec.panes(TEN_SECONDS, 10));
    Limit perMinute = Limit.of(8, WindowSpec.log(Duration.ofMinutes(1)));
    LimiterStore l = engine.limiterStore(name, Quota.of(perTenSeconds, perMinute));
    at(1_000);
    Grant g = l.lease("k", 1, 5).orElseThrow();
    at(30_000);
    release(l, 5, g, "late");
    Decision d = l.tryAcquire("k", 4);
    assertThat(d.allowed()).as("only the minute limit held 1 s: it took them back").isTrue();
    assertThat(d.remaining()).isEqualTo(1);
    at(61_000);
    assertThat(await(l.releaseAsync("k", 4, t0 + 30_000, "late-2"))).isNull();
    assertThat(l.lease("k", 1, 5).orElseThrow().permits())
        .as("the minute took the 4 of 30 s back, the ten seconds had let them go").isEqualTo(5);
    at(120_000);
    assertThat(await(l.releaseAsync("fresh", 3, t0 + 119_000, "none"))).isNull();
    assertThat(l.holdsState("fresh")).as("nothing held: nothing written").isFalse();
  }

  @Test
  void release_ofLogAndWeightedLimits_takesFromTheEntryOrFixedWindowOfTheGrant()
      throws Exception {
    Limit log = Limit.of(10, WindowSpec.log(TEN_SECONDS));
    Limit weighted = Limit.of(10, WindowSpec.weighted(TEN_SECONDS));
    LimiterStore l = engine.limiterStore(name, Quota.of(log, weighted));
    at(9_000);
    Grant g = l.lease("k", 1, 10).orElseThrow();
    at(12_000); // weighted: the grant sits in the previous fixed window, weight 0.8
    release(l, 6, g, "r");
    Decision d = l.tryAcquire("k", 6);
    assertThat(d.allowed()).as("log 4 + 6, weighted ceil(4 * 0.8) + 6").isTrue();
    assertThat(d.remaining()).isZero();
    at(18_999);
    assertThat(l.tryAcquire("k", 1).deniedBy()).contains(log);
    at(19_000); // the log's entry of 9 s left; weighted: ceil(4 * 0.1) + 6 = 7
    assertThat(l.tryAcquire("k", 3)).isEqualTo(Decision.allowed(0));
  }

  /**
   * Two engines, four threads each, lease and release asynchronously on one key at a standing
   * clock: every grant fits, and at the end the key holds exactly what was granted minus what
   * was released.
   */
  @Test
  void concurrentLeasesAndReleases_ofTwoEngines_countExactly() throws Exception {
    Quota quota = Quota.of(Limit.of(400, WindowSpec.panes(TEN_SECONDS, 10)));
    at(5_000);
    List<LimiterStore> stores = List.of(engine.limiterStore(name, quota),
        open(clock).limiterStore(name, quota));
    AtomicLong granted = new AtomicLong();
    AtomicLong released = new AtomicLong();
    List<CompletableFuture<?>> threads = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    for (int t = 0; t < 8; t++) {
      LimiterStore l = stores.get(t % 2);
      int thread = t;
      threads.add(CompletableFuture.runAsync(() -> {
        for (int i = 0; i < 30; i++) {
          Grant g = l.leaseAsync("k", 1, 20).toCompletableFuture().join().orElseThrow();
          granted.addAndGet(g.permits());
          if (g.permits() > 1) {
            long back = g.permits() / 2;
            l.releaseAsync("k", back, g.atMillis(), "t" + thread + "-" + i).toCompletableFuture()
                .join();
            released.addAndGet(back);
          }
        }
      }, pool));
    }
    try {
      for (CompletableFuture<?> f : threads) {
        await(f);
      }
    } finally {
      pool.shutdown();
    }
    long held = granted.get() - released.get();
    assertThat(released.get()).isPositive();
    assertThat(held).isBetween(1L, 400L);
    assertThat(stores.get(1).lease("k", 1, 400).orElseThrow().permits()).as("what is left")
        .isEqualTo(400 - held);
  }
}
