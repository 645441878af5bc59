package io.windowpane.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import io.windowpane.Failover.Signal;
import io.windowpane.GroupDecision;
import io.windowpane.LeaseStats;
import io.windowpane.Leasing;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.spi.DeferredEngine;
import io.windowpane.spi.Grant;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a chain does with the features beside it: a member that cannot connect at start, leases
 * and their releases, all-or-nothing groups. Manual clock, no chain thread: each
 * {@code checkNow()} is one probe round. The primary is a {@link FaultyEngine}.
 */
class ChainCompositionTest {

  private static final WindowSpec TEN_SECONDS = WindowSpec.panes(Duration.ofSeconds(10), 10);

  private final ManualClock clock = ManualClock.at(1_700_000_000_000L);
  private final FaultyEngine primary = new FaultyEngine("redis", clock);
  private Failover chain;
  private Windowpane wp;

  private Failover.Builder builder(io.windowpane.spi.Engine first) {
    return Failover.chain(first, Windowpane.localBuilder().clock(clock).buildEngine())
        .clock(clock).background(false).callTimeout(Duration.ofMillis(200))
        // a recovery probe slower than this does not count: a loaded machine's pause must not
        // make the probes in a row depend on timing
        .latencyThreshold(Duration.ofSeconds(5));
  }

  private void build(Failover.Builder b) {
    chain = b.build();
    wp = Windowpane.using(chain);
  }

  @AfterEach
  void close() {
    if (wp != null) {
      wp.close();
    }
  }

  /** Trips the primary DOWN by failed calls, as a dead backend would. */
  private void killPrimary(RateLimiter limiter) {
    primary.fault = FaultyEngine.Fault.FAIL;
    for (int i = 0; i < 3; i++) {
      limiter.tryAcquire("trip-" + i);
    }
    assertThat(chain.status().get(0).health()).isEqualTo(Health.DOWN);
  }

  // ---- starting while the primary's backend is down --------------------------------------

  @Test
  void deferredMember_thatCannotConnect_startsDown_andJoinsWithEveryEventOnceItAnswers()
      throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    java.util.concurrent.atomic.AtomicBoolean reachable =
        new java.util.concurrent.atomic.AtomicBoolean();
    DeferredEngine deferred = DeferredEngine.connecting("redis", true, true, () -> {
      attempts.incrementAndGet();
      if (!reachable.get()) {
        throw new io.windowpane.WindowpaneException("cannot connect to Redis at 127.0.0.1:1");
      }
      return primary;
    });
    assertThat(deferred.connected()).isFalse();
    build(builder(deferred));

    Failover.MemberStatus first = chain.status().get(0);
    assertThat(first.health()).isEqualTo(Health.DOWN);
    assertThat(first.signals()).containsExactly(Signal.CONNECT);
    assertThat(chain.activeEngine()).isEqualTo("local");

    WindowCounter c = wp.counter("c", TEN_SECONDS);
    RateLimiter api = wp.limiter("api", Limit.of(100, TEN_SECONDS));
    for (int i = 0; i < 7; i++) {
      c.add("k");
    }
    Decision d = api.tryAcquire("u", 3);
    assertThat(d.engine()).contains("local");
    assertThat(d.degraded()).isTrue();
    chain.checkNow(); // the member is not connected: its recovery probe fails, nothing changes
    assertThat(chain.status().get(0).health()).isEqualTo(Health.DOWN);

    reachable.set(true);
    long deadline = System.nanoTime() + 10_000_000_000L; // bounded wait on the background connect
    while (!deferred.connected() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(deferred.connected()).isTrue();
    assertThat(attempts.get()).isGreaterThan(1);

    chain.checkNow(); // probes in a row: 2 by default, then the replay, then UP
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
    assertThat(c.count("k")).isEqualTo(7); // answered by the primary now: it holds every event
    assertThat(primary.replays).extracting(FaultyEngine.Replay::count).contains(7L, 3L);
    assertThat(api.tryAcquire("u").engine()).contains("redis");
  }

  @Test
  void deferredEngine_badOptions_throwAtOnce_notInTheBackground() {
    assertThatThrownBy(() -> DeferredEngine.connecting("redis", true, true, () -> {
      throw new IllegalArgumentException("username: set a password with it");
    })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("username");
  }

  @Test
  void deferredEngine_connectedAtOnce_isUpFromTheFirstCall() {
    DeferredEngine deferred = DeferredEngine.connecting("redis", true, true, () -> primary);
    build(builder(deferred));
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
    assertThat(wp.limiter("api", Limit.of(2, TEN_SECONDS)).tryAcquire("k").engine())
        .contains("redis");
  }

  // ---- per-member timeouts ---------------------------------------------------------------------

  @Test
  void memberTimeouts_overTheChainsCallTimeout_forThatMemberOnly() {
    build(builder(primary).callTimeout(Duration.ofSeconds(30))
        .memberTimeouts("redis", Duration.ofMillis(20), Duration.ofMillis(20)));
    primary.fault = FaultyEngine.Fault.HANG;
    long t0 = System.nanoTime();
    Decision d = wp.limiter("api", Limit.of(5, TEN_SECONDS)).tryAcquire("k");
    long millis = (System.nanoTime() - t0) / 1_000_000;
    assertThat(d.engine()).contains("local");
    assertThat(millis).as("waited on the hung member").isLessThan(10_000);
  }

  @Test
  void memberTimeouts_forANameThatIsNotAMember_failsBuild() {
    assertThatThrownBy(() -> builder(primary)
        .memberTimeouts("etcd", Duration.ofMillis(20), Duration.ofMillis(20)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("memberTimeouts: 'etcd' is not a member of the chain [redis, local]");
  }

  // ---- leases -------------------------------------------------------------------------------

  @Test
  void lease_namesTheMemberThatGranted_andItsReleaseGoesThereOnly() {
    build(builder(primary));
    RateLimiter api = wp.limiter("api", Limit.of(10, TEN_SECONDS));
    Grant g = api.lease("k", 1, 5).orElseThrow();
    assertThat(g.permits()).isEqualTo(5);
    assertThat(g.engine()).contains("redis");

    api.releaseAsync("k", 2, g, "r1").toCompletableFuture().join();
    assertThat(primary.releases).containsExactly("k 2");
    assertThat(api.peek("k", 1).orElseThrow().remaining()).isEqualTo(6); // 10 - (5 - 2) - 1
  }

  @Test
  void release_owedToAMemberThatIsDown_isDroppedAndCounted_neverSentToTheFallback() {
    build(builder(primary));
    RateLimiter api = wp.limiter("api", Limit.of(10, TEN_SECONDS));
    Grant g = api.lease("k", 1, 5).orElseThrow();
    killPrimary(api);

    Grant local = api.lease("k", 1, 5).orElseThrow();
    assertThat(local.engine()).contains("local");
    assertThat(local.permits()).isEqualTo(1); // an in-process fallback grants exactly what is asked
    api.releaseAsync("k", 4, g, "r1").toCompletableFuture().join();

    assertThat(chain.stats().droppedReleases()).isEqualTo(1);
    assertThat(primary.releases).isEmpty();
    // the fallback still counts its own grant only: 10 - 1 taken, and 1 more asked
    assertThat(api.peek("k", 1).orElseThrow().remaining()).isEqualTo(8);
  }

  @Test
  void releaseWithoutTheGrant_isRefusedByAChain() {
    build(builder(primary));
    RateLimiter api = wp.limiter("api", Limit.of(10, TEN_SECONDS));
    Grant g = api.lease("k", 1, 5).orElseThrow();
    assertThat(api.releaseAsync("k", 2, g.atMillis(), "r1").toCompletableFuture())
        .failsWithin(Duration.ofSeconds(1))
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withCauseInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void leasingLimiter_onAChain_keepsLeasing_andAnswersHotKeysLocally() {
    build(builder(primary));
    RateLimiter hot = wp.limiter("hot", Quota.of(Limit.of(1_000, TEN_SECONDS))
        .withLeasing(Leasing.defaults().clock(clock)));
    int allowed = 0;
    for (int i = 0; i < 200; i++) {
      allowed += hot.tryAcquire("k").allowed() ? 1 : 0;
    }
    assertThat(allowed).isEqualTo(200);
    LeaseStats s = hot.leaseStats().orElseThrow();
    assertThat(s.active()).isTrue();
    assertThat(s.leases()).isPositive();
    assertThat(s.localDecisions()).isPositive();
  }

  // ---- all-or-nothing groups ------------------------------------------------------------------

  @Test
  void group_onAHealthyChain_isDecidedByThePrimary() {
    build(builder(primary));
    RateLimiter user = wp.limiter("user", Limit.of(5, TEN_SECONDS));
    RateLimiter tenant = wp.limiter("tenant", Limit.of(3, TEN_SECONDS));
    GroupDecision g = wp.tryAcquireAllOrNothing(List.of(user.request("u", 2),
        tenant.request("t", 2))).orElseThrow();
    assertThat(g.allowed()).isTrue();
    assertThat(g.decision().engine()).contains("redis");
    assertThat(g.decision().remaining()).isEqualTo(1);

    GroupDecision denied = wp.tryAcquireAllOrNothing(List.of(user.request("u", 2),
        tenant.request("t", 2))).orElseThrow();
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.deniedIndex()).hasValue(1);
    assertThat(user.peek("u", 1).orElseThrow().remaining()).isEqualTo(2); // nothing kept of it
  }

  @Test
  void group_whosePrimaryDiesMidway_isDecidedWholeByTheFallback_neverSplit() {
    build(builder(primary));
    RateLimiter user = wp.limiter("user", Limit.of(5, TEN_SECONDS));
    RateLimiter tenant = wp.limiter("tenant", Limit.of(3, TEN_SECONDS));
    primary.failAfterCalls = primary.calls.get() + 1; // the first lease lands, then it dies

    GroupDecision g = wp.tryAcquireAllOrNothing(List.of(user.request("u", 2),
        tenant.request("t", 3))).orElseThrow();

    assertThat(g.allowed()).isTrue();
    assertThat(g.decision().engine()).contains("local");
    assertThat(g.decision().degraded()).isTrue();
    for (java.util.Optional<Decision> d : g.decisions()) {
      assertThat(d.orElseThrow().engine()).contains("local");
    }
    // the whole group is on the fallback: both requests' permits, and nothing else
    assertThat(wp.limiter("tenant", Limit.of(3, TEN_SECONDS)).tryAcquire("t").allowed())
        .isFalse();
    assertThat(chain.stats().journaledBatches()).isEqualTo(2); // replayed into redis on recovery
  }

  @Test
  void group_largerThanAFallbacksFleetShare_isDeniedThere_namingTheCallersLimit() {
    build(builder(primary).fleetNodes(4));
    Limit perUser = Limit.of(8, TEN_SECONDS);
    RateLimiter user = wp.limiter("user", perUser);
    RateLimiter tenant = wp.limiter("tenant", Limit.of(100, TEN_SECONDS));
    killPrimary(user);

    GroupDecision g = wp.tryAcquireAllOrNothing(List.of(tenant.request("t", 1),
        user.request("u", 2), user.request("u", 1))).orElseThrow(); // 3 > 8 / 4 on this node

    assertThat(g.allowed()).isFalse();
    assertThat(g.decision().deniedBy()).contains(perUser);
    assertThat(tenant.peek("t", 1).orElseThrow().remaining()).isEqualTo(24); // 100 / 4 - 1
  }
}
