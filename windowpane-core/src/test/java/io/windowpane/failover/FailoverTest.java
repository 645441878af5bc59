package io.windowpane.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import io.windowpane.Failover.Signal;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.OnFailure;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The chain's routing, breaker, hysteresis, journal and last resort, with a manual clock and no
 * background thread (each {@code checkNow()} is one probe round). The primary is a
 * {@link FaultyEngine}; the fallback the real local engine.
 */
class FailoverTest {

  private final ManualClock clock = ManualClock.at(1_700_000_000_000L);
  private final FaultyEngine primary = new FaultyEngine("redis", clock);
  private final List<String> changes = new ArrayList<>();
  private Failover chain;
  private Windowpane wp;

  private Failover.Builder builder() {
    return Failover.chain(primary, Windowpane.localBuilder().clock(clock).buildEngine())
        .clock(clock).background(false).callTimeout(Duration.ofMillis(50))
        .listener(new Failover.Listener() {
          @Override
          public void healthChanged(String engine, Health from, Health to, String reason) {
            changes.add(engine + " " + from + "->" + to);
          }
        });
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

  private static final WindowSpec TEN_SECONDS = WindowSpec.panes(Duration.ofSeconds(10), 10);

  @Test
  void healthyChain_answersFromThePrimary_notDegraded() {
    build(builder());
    RateLimiter api = wp.limiter("api", Limit.of(2, TEN_SECONDS));
    Decision d = api.tryAcquire("k");
    assertThat(d.allowed()).isTrue();
    assertThat(d.engine()).contains("redis");
    assertThat(d.degraded()).isFalse();
    assertThat(chain.activeEngine()).isEqualTo("redis");
    assertThat(chain.degraded()).isFalse();
  }

  @Test
  void failingPrimary_callersGetFallbackAnswers_andTripsAfterThreeFailuresInARow() {
    build(builder());
    WindowCounter c = wp.counter("c", TEN_SECONDS);
    primary.fault = FaultyEngine.Fault.FAIL;
    assertThat(c.add("k")).isEqualTo(1);
    assertThat(c.add("k")).isEqualTo(2);
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
    assertThat(c.add("k")).isEqualTo(3);
    assertThat(chain.status().get(0).health()).isEqualTo(Health.DOWN);
    assertThat(chain.status().get(0).signals()).containsExactly(Signal.FAILURES);
    int calls = primary.calls.get();
    assertThat(c.add("k")).isEqualTo(4);
    assertThat(primary.calls.get()).as("the breaker is open: no call reaches the primary")
        .isEqualTo(calls);
    assertThat(chain.activeEngine()).isEqualTo("local");
    assertThat(changes).containsExactly("redis UP->DOWN");
  }

  @Test
  void hungPrimary_aCallWaitsAtMostTheCallTimeout_thenNotAtAllOnceTripped() {
    build(builder());
    RateLimiter api = wp.limiter("api", Limit.of(100, TEN_SECONDS));
    primary.fault = FaultyEngine.Fault.HANG;
    for (int i = 0; i < 3; i++) {
      long t0 = System.nanoTime();
      Decision d = api.tryAcquire("k");
      long millis = (System.nanoTime() - t0) / 1_000_000;
      assertThat(d.allowed()).isTrue();
      assertThat(d.engine()).contains("local");
      assertThat(d.degraded()).isTrue();
      assertThat(millis).isBetween(45L, 2_000L);
    }
    assertThat(chain.status().get(0).health()).isEqualTo(Health.DOWN);
    long t0 = System.nanoTime();
    assertThat(api.tryAcquire("k").engine()).contains("local");
    assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(40);
  }

  @Test
  void writesRefusedWhileProbesPass_goesReadOnly_countsStillFromThePrimary() {
    build(builder());
    WindowCounter c = wp.counter("c", TEN_SECONDS);
    c.add("k", 5); // on the primary
    primary.fault = FaultyEngine.Fault.REFUSE_WRITES;
    c.add("k"); // fails on the primary, answered by local
    chain.checkNow(); // a probe (a read) passes after the streak began
    c.add("k");
    c.add("k");
    assertThat(chain.status().get(0).health()).isEqualTo(Health.READ_ONLY);
    assertThat(chain.status().get(0).signals()).containsExactly(Signal.WRITE_ERRORS);
    assertThat(c.count("k")).as("read from the read-only primary").isEqualTo(5);
    assertThat(chain.activeEngine()).isEqualTo("local");
  }

  @Test
  void newKeysRefused_nextMemberAnswers_primaryStaysUp_andNothingIsJournaledForIt() {
    build(builder());
    RateLimiter api = wp.limiter("api", Limit.of(5, TEN_SECONDS));
    WindowCounter c = wp.counter("c", TEN_SECONDS);
    primary.fault = FaultyEngine.Fault.REFUSE_NEW_KEYS;
    for (int i = 0; i < 10; i++) {
      Decision d = api.tryAcquire("k");
      assertThat(d.engine()).contains("local");
      assertThat(d.degraded()).isTrue();
      assertThat(d.allowed()).isEqualTo(i < 5);
    }
    assertThat(c.add("k", 2)).isEqualTo(2);
    chain.checkNow();
    assertThat(chain.status().get(0).health()).as("not a failure: no trip")
        .isEqualTo(Health.UP);
    assertThat(changes).isEmpty();
    assertThat(chain.status().get(0).pendingReplay()).as("a replay would create the key")
        .isZero();
    assertThat(chain.stats().lostEvents()).isZero();
    primary.fault = FaultyEngine.Fault.NONE;
    assertThat(api.tryAcquire("k").engine()).contains("redis");
    assertThat(primary.replays).isEmpty();
  }

  @Test
  void newKeysRefused_withoutAFallback_theOnFailurePolicyAnswers() {
    for (OnFailure policy : OnFailure.values()) {
      FaultyEngine redis = new FaultyEngine("redis", clock);
      try (Windowpane alone = Windowpane.using(Failover.chain(redis).clock(clock)
          .background(false).onFailure(policy).build())) {
        redis.fault = FaultyEngine.Fault.REFUSE_NEW_KEYS;
        RateLimiter api = alone.limiter("api", Limit.of(5, TEN_SECONDS));
        if (policy == OnFailure.ERROR) {
          assertThatThrownBy(() -> api.tryAcquire("k"))
              .isInstanceOf(io.windowpane.KeyCreationRefusedException.class);
        } else {
          Decision d = api.tryAcquire("k");
          assertThat(d.allowed()).isEqualTo(policy == OnFailure.ALLOW);
          assertThat(d.engine()).contains("none");
        }
      }
    }
  }

  @Test
  void failedProbes_tripDown_afterTwoInARow() {
    build(builder());
    primary.fault = FaultyEngine.Fault.FAIL;
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.DOWN);
    assertThat(chain.status().get(0).signals()).containsExactly(Signal.PROBES);
  }

  @Test
  void recovery_needsTwoProbesInARowAfterOneSignal() {
    build(builder());
    tripByFailures();
    primary.fault = FaultyEngine.Fault.NONE;
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.DOWN);
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
    assertThat(chain.stats().recoveries()).isEqualTo(1);
    assertThat(changes).containsExactly("redis UP->DOWN", "redis DOWN->UP");
  }

  @Test
  void recovery_aFailedProbeStartsTheCountAgain() {
    build(builder());
    tripByFailures();
    primary.fault = FaultyEngine.Fault.NONE;
    chain.checkNow(); // 1 passed
    primary.fault = FaultyEngine.Fault.FAIL;
    chain.checkNow(); // failed: back to 0
    primary.fault = FaultyEngine.Fault.NONE;
    chain.checkNow(); // 1 passed
    assertThat(chain.status().get(0).health()).isEqualTo(Health.DOWN);
    chain.checkNow(); // 2 passed
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
  }

  @Test
  void aTripSoonAfterARecovery_isAFlap_andDoublesTheProbesNeeded_untilACalmWindow() {
    build(builder());
    tripByFailures();
    primary.fault = FaultyEngine.Fault.NONE;
    recoverWith(2);
    clock.advance(1_000); // within the flap window (30 probe intervals = 3 s)
    tripByFailures();
    primary.fault = FaultyEngine.Fault.NONE;
    recoverWith(4);
    clock.advance(1_000);
    tripByFailures();
    primary.fault = FaultyEngine.Fault.NONE;
    recoverWith(8);
    clock.advance(3_000); // calm: the next trip is not a flap
    tripByFailures();
    primary.fault = FaultyEngine.Fault.NONE;
    recoverWith(2);
  }

  /** Asserts the member recovers on exactly the {@code n}th probe round. */
  private void recoverWith(int n) {
    for (int i = 1; i < n; i++) {
      chain.checkNow();
      assertThat(chain.status().get(0).health()).as("after probe " + i + " of " + n)
          .isEqualTo(Health.DOWN);
    }
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
  }

  @Test
  void recovery_afterLatencyAndFailures_waitsFiveProbes() {
    // The latency window runs on the system clock: a 10 s window still holds the slow call when
    // checkNow reads it on a loaded machine (a 10 ms one did not always, at load 5 and more), and
    // a 100 ms threshold keeps the recovery probes' own time under it there.
    build(builder().latencyThreshold(Duration.ofMillis(100))
        .latencyWindow(Duration.ofSeconds(10)).slowWindowsToTrip(1)
        .callTimeout(Duration.ofMillis(200)));
    WindowCounter c = wp.counter("c", TEN_SECONDS);
    primary.fault = FaultyEngine.Fault.HANG;
    c.add("k"); // one timed-out call of 200 ms lands in the latency window
    chain.checkNow(); // latency: READ_ONLY; then its probe hangs and fails
    assertThat(chain.status().get(0).health()).isEqualTo(Health.READ_ONLY);
    c.count("k");
    c.count("k");
    c.count("k"); // three timeouts in a row: DOWN, a second signal
    assertThat(chain.status().get(0).health()).isEqualTo(Health.DOWN);
    assertThat(chain.status().get(0).signals()).containsExactlyInAnyOrder(Signal.LATENCY,
        Signal.FAILURES);
    primary.fault = FaultyEngine.Fault.NONE;
    for (int i = 0; i < 4; i++) {
      chain.checkNow();
      assertThat(chain.status().get(0).health()).as("probe " + (i + 1)).isNotEqualTo(Health.UP);
    }
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
  }

  @Test
  void fallbackEvents_areReplayedIntoThePrimary_withTheirTimestamps_beforeItTakesCalls() {
    build(builder());
    WindowCounter c = wp.counter("c", TEN_SECONDS);
    RateLimiter api = wp.limiter("api", Limit.of(3, TEN_SECONDS));
    tripByFailures(); // three adds of "trip" on local
    long t1 = clock.millis();
    c.add("k", 2);
    c.add("k", 3); // same key, same millisecond: one batch of 5
    clock.advance(7);
    long t2 = clock.millis();
    c.add("k");
    for (int i = 0; i < 5; i++) {
      api.tryAcquire("u"); // 3 allowed, 2 denied: only the allowed are journaled
    }
    assertThat(chain.status().get(0).pendingReplay()).isEqualTo(3 + 5 + 1 + 3);
    primary.fault = FaultyEngine.Fault.NONE;
    chain.checkNow();
    assertThat(primary.replays).isEmpty();
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
    List<String> sent = primary.replays.stream()
        .map(r -> r.store() + "/" + r.key() + " " + r.count() + " @" + (r.atMillis() - t1))
        .sorted().collect(Collectors.toList());
    assertThat(sent).containsExactly("api/u 3 @7", "c/k 1 @7", "c/k 5 @0", "c/trip 3 @0");
    assertThat(primary.replays.stream().map(FaultyEngine.Replay::id).distinct()).hasSize(4);
    assertThat(c.count("k")).as("now answered by the primary, replay included").isEqualTo(6);
    assertThat(chain.stats().replayedEvents()).isEqualTo(12);
    assertThat(chain.status().get(0).pendingReplay()).isZero();
    assertThat(t2).isEqualTo(t1 + 7);
  }

  @Test
  void eventTimeAddsTakenByTheFallback_areReplayedAtTheirOwnTime() {
    build(builder());
    WindowCounter c = wp.counter("c", TEN_SECONDS);
    c.add("k", 1, clock.millis() - 2_000); // on the primary: not journaled
    tripByFailures();
    long t = clock.millis();
    assertThat(c.add("k", 2, t - 4_000)).as("the fallback's count").isEqualTo(2);
    assertThat(c.add("k", 1, t + 500)).as("ahead within 1 s: taken as now").isEqualTo(3);
    assertThatThrownBy(() -> c.add("k", 1, t - 60_000))
        .isInstanceOf(io.windowpane.EventTimeException.class);
    primary.fault = FaultyEngine.Fault.NONE;
    chain.checkNow();
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
    List<String> sent = primary.replays.stream().filter(r -> r.key().equals("k"))
        .map(r -> r.count() + " @" + (r.atMillis() - t)).sorted().collect(Collectors.toList());
    assertThat(sent).containsExactly("1 @0", "2 @-4000");
  }

  @Test
  void aFailedReplay_keepsTheMemberDown_andResendsTheSameIds() {
    build(builder());
    tripByFailures();
    primary.fault = FaultyEngine.Fault.NONE;
    primary.failReplays = true;
    chain.checkNow();
    chain.checkNow(); // probes pass, the replay fails
    assertThat(chain.status().get(0).health()).isEqualTo(Health.DOWN);
    assertThat(chain.status().get(0).pendingReplay()).isEqualTo(3);
    primary.failReplays = false;
    chain.checkNow();
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
    assertThat(primary.replays).hasSize(1);
    assertThat(primary.replays.get(0).count()).isEqualTo(3);
  }

  @Test
  void aReplayTheMemberRefusesForGood_isCountedLost_andDoesNotHoldUpRecovery() {
    build(builder());
    tripByFailures();
    // this engine's statistics take no replays: the stage fails with UnsupportedOperationException
    wp.stats("latency", io.windowpane.StatsSpec.histogram(Duration.ofSeconds(10), 10))
        .recordAll("k", 1.0, 2.0, 3.0);
    primary.fault = FaultyEngine.Fault.NONE;
    chain.checkNow();
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
    assertThat(chain.stats().lostEvents()).isEqualTo(3);
    assertThat(chain.stats().replayedEvents()).isEqualTo(3); // the counter's three "trip" adds
  }

  @Test
  void eventsOlderThanTheWindow_areDroppedNotReplayed() {
    build(builder());
    tripByFailures();
    clock.advance(Duration.ofSeconds(12)); // past W + r = 11 s
    primary.fault = FaultyEngine.Fault.NONE;
    chain.checkNow();
    chain.checkNow();
    assertThat(chain.status().get(0).health()).isEqualTo(Health.UP);
    assertThat(primary.replays).isEmpty();
    assertThat(chain.stats().droppedEvents()).isEqualTo(3);
  }

  @Test
  void fleetShare_dividesEachLimitOnTheLocalFallback() {
    build(builder().fleetNodes(4));
    RateLimiter api = wp.limiter("api", Limit.of(10, TEN_SECONDS).named("ten"));
    primary.fault = FaultyEngine.Fault.FAIL;
    int allowed = 0;
    Decision last = null;
    for (int i = 0; i < 10; i++) {
      last = api.tryAcquire("k");
      allowed += last.allowed() ? 1 : 0;
    }
    assertThat(allowed).isEqualTo(2); // floor(10 / 4)
    assertThat(last.deniedBy()).contains(Limit.of(10, TEN_SECONDS).named("ten"));
    assertThat(last.degraded()).isTrue();
    Decision tooLarge = api.tryAcquire("other", 3);
    assertThat(tooLarge.allowed()).isFalse();
    assertThat(tooLarge.retryAfterMillis()).isEqualTo(10_000);
  }

  @Test
  void noMemberLeft_appliesOnFailure() {
    FaultyEngine second = new FaultyEngine("etcd", clock);
    for (OnFailure policy : OnFailure.values()) {
      Failover f = Failover.chain(primary, second).background(false).onFailure(policy)
          .callTimeout(Duration.ofMillis(20)).build();
      try (Windowpane w = Windowpane.using(f)) {
        RateLimiter api = w.limiter("api", Limit.of(10, TEN_SECONDS));
        primary.fault = FaultyEngine.Fault.FAIL;
        second.fault = FaultyEngine.Fault.FAIL;
        if (policy == OnFailure.ERROR) {
          assertThatThrownBy(() -> api.tryAcquire("k")).isInstanceOf(WindowpaneException.class)
              .hasMessageContaining("etcd is down");
        } else {
          Decision d = api.tryAcquire("k");
          assertThat(d.allowed()).isEqualTo(policy == OnFailure.ALLOW);
          assertThat(d.engine()).contains("none");
          assertThat(d.degraded()).isTrue();
        }
        assertThatThrownBy(() -> w.counter("c", TEN_SECONDS).add("k"))
            .isInstanceOf(WindowpaneException.class);
      }
      primary.fault = FaultyEngine.Fault.NONE;
      second.fault = FaultyEngine.Fault.NONE;
    }
  }

  @Test
  void lastMemberTimingOut_stillGetsOnFailure_andErrorRaisesATimeout() {
    FaultyEngine second = new FaultyEngine("etcd", clock);
    for (OnFailure policy : OnFailure.values()) {
      Failover f = Failover.chain(second).background(false).onFailure(policy)
          .callTimeout(Duration.ofMillis(20)).build();
      try (Windowpane w = Windowpane.using(f)) {
        RateLimiter api = w.limiter("api", Limit.of(10, TEN_SECONDS));
        second.fault = FaultyEngine.Fault.HANG;
        if (policy == OnFailure.ERROR) {
          assertThatThrownBy(() -> api.tryAcquire("k"))
              .isInstanceOf(io.windowpane.WindowpaneTimeoutException.class)
              .hasMessageContaining("etcd did not answer within the call timeout of 20 ms");
        } else {
          assertThat(api.tryAcquire("k").engine()).contains("none");
        }
      }
      second.fault = FaultyEngine.Fault.NONE;
    }
  }

  @Test
  void locks_failClosedWhileThePrimaryIsNotUp() {
    build(builder());
    tripByFailures();
    assertThatThrownBy(() -> wp.lock("job").tryLock())
        .isInstanceOf(WindowpaneException.class).hasMessageContaining("fail closed");
  }

  @Test
  void badOptions_areRefusedNamingTheArgumentAndRange() {
    assertThatThrownBy(() -> Failover.chain(List.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("members (count)");
    assertThatThrownBy(() -> builder().fleetShare(0))
        .hasMessageContaining("fleetShare must be in (0, 1]");
    assertThatThrownBy(() -> builder().failuresToTrip(-1))
        .hasMessageContaining("failuresToTrip must be in [1, 10000]");
    assertThatThrownBy(() -> builder().probesToRecover(3, 2))
        .hasMessageContaining("probesToRecover (twice) must be in [3, 100]");
    assertThatThrownBy(() -> builder().latencyWindow(Duration.ofMillis(15)))
        .hasMessageContaining("multiple of 10 ms");
    assertThatThrownBy(() -> builder().callTimeout(Duration.ofMillis(-5)))
        .hasMessageContaining("callTimeout must be in [1 ms, 60000 ms]");
  }

  /** Three adds of key "trip" fail on the primary: DOWN by failures, answered by local. */
  private void tripByFailures() {
    primary.fault = FaultyEngine.Fault.FAIL;
    WindowCounter t = wp.counter("c", TEN_SECONDS);
    for (int i = 0; i < 3; i++) {
      t.add("trip");
    }
    assertThat(chain.status().get(0).health()).isEqualTo(Health.DOWN);
  }
}
