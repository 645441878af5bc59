package io.windowpane.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Algorithm;
import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.spi.Grant;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Conformance of leases and releases ({@link RateLimiter#lease}, {@link RateLimiter#releaseAsync},
 * the SPI's {@code LimiterStore.lease} and {@code releaseAsync}): grant sizes, all-or-nothing
 * across limits, release giving room back exactly where the grant put it, and the rules a
 * release keeps (only while the window holds the grant, never below 0, idempotent per id).
 *
 * <p>Run as the {@code Leases} group nested in {@link LimiterConformance}, so every engine that
 * runs the limiter conformance runs it. An engine whose {@code lease} answers empty is skipped by
 * capability (a JUnit assumption naming the engine), not failed.
 *
 * <p>Where a release acts, per algorithm: a {@code SLIDING_PANES} window holds the grant's pane
 * {@code floorDiv(atMillis, r)} while it is one of the P newest; a {@code SLIDING_WEIGHTED}
 * window holds the fixed window {@code floorDiv(atMillis, W)} while it is the current or the
 * previous one; a {@code SLIDING_LOG} holds {@code atMillis} while {@code atMillis > now - W}.
 */
public abstract class LeaseConformance extends ConformanceBase {

  private static final Duration SECOND = Duration.ofSeconds(1);

  /** Operations per thread of the concurrency test; slower engines lower it. */
  protected int operationsPerThread() {
    return 300;
  }

  /** Panes of 8 (a ring of exactly 8 slots), a log and a weighted window, each 1 s long. */
  private static List<WindowSpec> everyAlgorithm() {
    return List.of(WindowSpec.panes(SECOND, 8), WindowSpec.log(SECOND),
        WindowSpec.weighted(SECOND));
  }

  /** A fresh limiter, or the test is skipped when the engine does not lease. */
  private RateLimiter leasing(ManualClock clock, Limit first, Limit... more) {
    Windowpane wp = engine(clock);
    RateLimiter limiter = wp.limiter(uniqueName("lease"), Quota.of(first, more));
    Optional<Grant> probe = limiter.lease("capability-probe", 1, 1);
    Assumptions.assumeTrue(probe.isPresent(), () -> "the " + wp.engineName()
        + " engine does not lease (LimiterStore.lease answers empty): skipped by capability");
    return limiter;
  }

  private static Grant lease(RateLimiter limiter, String key, long min, long max) {
    return limiter.lease(key, min, max).orElseThrow();
  }

  /**
   * Releases through the Grant form (what a failover chain needs to know the member): a grant
   * recorded at {@code atMillis}, made by the engine a decision on this limiter comes from.
   */
  private static void release(RateLimiter limiter, String key, long permits, long atMillis,
      String id) {
    try {
      io.windowpane.Decision by = limiter.peek("capability-probe", 1)
          .orElse(io.windowpane.Decision.allowed(0)); // an engine without peek: not a chain
      Grant at = new Grant(by.allowed() ? 1 : 0, atMillis, by);
      limiter.releaseAsync(key, permits, at, id).toCompletableFuture()
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("release of " + permits + " at " + atMillis + " failed", e);
    }
  }

  /** The key has exactly {@code room} permits of room: they fit, one more does not. */
  private static void assertRoom(RateLimiter limiter, String key, long room, String what) {
    if (room > 0) {
      assertThat(limiter.tryAcquire(key, room)).as("%s: %d fit", what, room)
          .isEqualTo(Decision.allowed(0));
    }
    assertThat(limiter.tryAcquire(key, 1).allowed()).as("%s: no room beyond %d", what, room)
        .isFalse();
  }

  /** The last instant at which {@code spec}'s window counts the events of {@code t} in full. */
  private static long heldInFull(WindowSpec spec, long t) {
    switch (spec.algorithm()) {
      case SLIDING_LOG:
        return t + spec.windowMillis() - 1;
      case SLIDING_WEIGHTED: // the next fixed window's first instant: weight (W - 0) / W
        return (Math.floorDiv(t, spec.windowMillis()) + 1) * spec.windowMillis();
      default:
        return (Math.floorDiv(t, spec.resolutionMillis()) + spec.panes())
            * spec.resolutionMillis() - 1;
    }
  }

  /** The first instant at which {@code spec}'s window no longer holds {@code t}. */
  private static long leaves(WindowSpec spec, long t) {
    switch (spec.algorithm()) {
      case SLIDING_LOG:
        return t + spec.windowMillis();
      case SLIDING_WEIGHTED:
        return (Math.floorDiv(t, spec.windowMillis()) + 2) * spec.windowMillis();
      default:
        return (Math.floorDiv(t, spec.resolutionMillis()) + spec.panes())
            * spec.resolutionMillis();
    }
  }

  @Test
  void lease_grantsTheLargestSliceThatFits_upToMax() {
    for (long t0 : startInstants()) {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(t0);
        RateLimiter limiter = leasing(clock, Limit.of(10, spec));
        String at = spec + " from " + t0;
        assertThat(limiter.tryAcquire("k", 3)).isEqualTo(Decision.allowed(7));
        Grant full = lease(limiter, "k", 1, 5);
        assertThat(full.permits()).as(at).isEqualTo(5);
        assertThat(full.atMillis()).as(at).isEqualTo(t0);
        assertThat(full.decision()).as(at).isEqualTo(Decision.allowed(2));
        Grant partial = lease(limiter, "k", 1, 5);
        assertThat(partial.permits()).as(at).isEqualTo(2);
        assertThat(partial.decision()).as(at).isEqualTo(Decision.allowed(0));
        Grant none = lease(limiter, "k", 1, 5);
        assertThat(none.permits()).as(at).isZero();
        assertThat(none.decision().allowed()).as(at).isFalse();
        assertThat(none.decision()).as(at).isEqualTo(limiter.tryAcquire("k", 1));
        Grant whole = lease(limiter, "other", 10, 10);
        assertThat(whole.permits()).as(at).isEqualTo(10);
        assertThat(whole.decision()).as(at).isEqualTo(Decision.allowed(0));
      }
    }
  }

  @Test
  void lease_whenMinDoesNotFit_recordsNothingAndAnswersTheDenialOfMin() {
    for (long t0 : startInstants()) {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(t0);
        RateLimiter limiter = leasing(clock, Limit.of(10, spec));
        String at = spec + " from " + t0;
        limiter.tryAcquire("k", 7);
        Grant none = lease(limiter, "k", 4, 6);
        assertThat(none.permits()).as(at).isZero();
        Decision denial = limiter.tryAcquire("k", 4);
        assertThat(denial.allowed()).as(at).isFalse();
        assertThat(none.decision()).as(at).isEqualTo(denial);
        assertThat(none.decision().deniedBy()).contains(limiter.quota().limits().get(0));
        assertThat(none.decision().retryAfterMillis()).as(at).isPositive();
        Grant rest = lease(limiter, "k", 3, 6);
        assertThat(rest.permits()).as("%s: the denied lease recorded nothing", at).isEqualTo(3);
        assertThat(rest.decision()).as(at).isEqualTo(Decision.allowed(0));
      }
    }
  }

  @Test
  void lease_recordsLikeTryAcquire_soRetryAfterStaysExact() {
    for (long t0 : startInstants()) {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(t0);
        RateLimiter limiter = leasing(clock, Limit.of(10, spec));
        String at = spec + " from " + t0;
        lease(limiter, "k", 1, 6);
        clock.advance(130);
        lease(limiter, "k", 1, 6);
        Decision denied = limiter.tryAcquire("k", 2);
        assertThat(denied.allowed()).as(at).isFalse();
        long now = clock.millis();
        clock.set(now + denied.retryAfterMillis() - 1);
        assertThat(lease(limiter, "k", 2, 2).permits()).as("%s: 1 ms early", at).isZero();
        clock.set(now + denied.retryAfterMillis());
        assertThat(lease(limiter, "k", 2, 2).permits()).as("%s: on time", at).isEqualTo(2);
      }
    }
  }

  @Test
  void lease_acrossLimits_grantsWhatFitsEveryLimit_orNothing() {
    for (long t0 : startInstants()) {
      ManualClock clock = ManualClock.at(Math.floorDiv(t0, 10_000) * 10_000);
      Limit perSecond = Limit.of(10, WindowSpec.panes(SECOND, 10));
      Limit perTen = Limit.of(6, WindowSpec.log(Duration.ofSeconds(10)));
      RateLimiter limiter = leasing(clock, perSecond, perTen);
      limiter.tryAcquire("k", 2);
      Grant g = lease(limiter, "k", 1, 6);
      assertThat(g.permits()).as("from %d: the second limit bounds it", t0).isEqualTo(4);
      assertThat(g.decision()).isEqualTo(Decision.allowed(0));
      clock.advance(1000);
      Grant none = lease(limiter, "k", 1, 6);
      assertThat(none.permits()).isZero();
      assertThat(none.decision().deniedBy()).contains(perTen);
      assertThat(none.decision().retryAfterMillis()).as("from %d", t0).isEqualTo(9000);
      assertThat(none.decision()).as("from %d", t0).isEqualTo(limiter.tryAcquire("k", 1));

      Limit tightFirst = Limit.of(3, WindowSpec.log(SECOND));
      Limit weighted = Limit.of(8, WindowSpec.weighted(Duration.ofSeconds(10)));
      RateLimiter both = leasing(clock, tightFirst, weighted);
      assertThat(lease(both, "k", 1, 3).permits()).isEqualTo(3);
      Grant byFirst = lease(both, "k", 1, 1);
      assertThat(byFirst.decision().deniedBy()).contains(tightFirst);
      assertThat(byFirst.decision().retryAfterMillis()).isEqualTo(1000);
      clock.advance(1000);
      assertThat(lease(both, "k", 1, 3).permits()).isEqualTo(3);
      clock.advance(1000);
      assertThat(lease(both, "k", 1, 3).permits()).as("from %d: 8 - 6 left", t0).isEqualTo(2);
    }
  }

  @Test
  void leaseAsync_grantsLikeLease() throws Exception {
    ManualClock clock = ManualClock.at(REALISTIC + 77);
    RateLimiter limiter = leasing(clock, Limit.of(10, WindowSpec.panes(SECOND, 10)));
    Grant g = limiter.leaseAsync("k", 1, 4).toCompletableFuture().get(30, TimeUnit.SECONDS)
        .orElseThrow();
    assertThat(g.permits()).isEqualTo(4);
    assertThat(g.atMillis()).isEqualTo(REALISTIC + 77);
    assertThat(lease(limiter, "k", 1, 6).permits()).isEqualTo(6);
  }

  @Test
  void release_givesTheRoomBackAtOnceAndExactly() {
    for (long t0 : startInstants()) {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(t0);
        RateLimiter limiter = leasing(clock, Limit.of(10, spec));
        String at = spec + " from " + t0;
        Grant g = lease(limiter, "k", 1, 8);
        assertThat(g.permits()).isEqualTo(8);
        release(limiter, "k", 3, g.atMillis(), "part-1");
        release(limiter, "k", 2, g.atMillis(), "part-2");
        assertRoom(limiter, "k", 7, at + ", released 5 of 8 at once");

        Grant later = lease(limiter, "later", 8, 8);
        clock.set(heldInFull(spec, later.atMillis()));
        // a decision at the later instant first: an engine that caches the older part of the
        // window must not keep the released permits in it
        assertThat(limiter.tryAcquire("later", 1)).as(at).isEqualTo(Decision.allowed(1));
        release(limiter, "later", 5, later.atMillis(), "r");
        assertRoom(limiter, "later", 6, at + ", released 5 of 8 while still held in full");
      }
    }
  }

  @Test
  void release_afterTheWindowLeftTheGrant_changesNothing() {
    for (long t0 : startInstants()) {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(t0);
        RateLimiter limiter = leasing(clock, Limit.of(10, spec));
        String at = spec + " from " + t0;
        Grant g = lease(limiter, "k", 5, 5);
        Grant edge = lease(limiter, "edge", 5, 5);
        if (spec.algorithm() != Algorithm.SLIDING_WEIGHTED) { // weighted: 1/W of it is left
          clock.set(leaves(spec, edge.atMillis()) - 1);
          release(limiter, "edge", 2, edge.atMillis(), "last-instant");
          assertRoom(limiter, "edge", 7, at + ", release at the last instant the grant is held");
        }
        // for panes of 8 and weighted windows the ring slot of the grant's pane now holds
        // the current pane: a release that missed the pane's identity would take from it
        clock.set(leaves(spec, g.atMillis()));
        assertThat(limiter.tryAcquire("k", 4).allowed()).isTrue();
        release(limiter, "k", 5, g.atMillis(), "late");
        assertRoom(limiter, "k", 6, at + ", release after the grant left");
      }
    }
  }

  @Test
  void release_atAnInstantNoWindowHolds_changesNothing() {
    long day = 86_400_000L;
    for (long t0 : startInstants()) {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(t0);
        RateLimiter limiter = leasing(clock, Limit.of(10, spec));
        lease(limiter, "k", 5, 5);
        release(limiter, "k", 5, t0 + day, "future");
        release(limiter, "k", 5, t0 - day, "past");
        assertRoom(limiter, "k", 5, spec + " from " + t0 + ": no grant at either instant");
      }
    }
  }

  @Test
  void release_neverTakesMoreThanTheGrantLeft() {
    for (long t0 : startInstants()) {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(t0);
        RateLimiter limiter = leasing(clock, Limit.of(10, spec));
        Grant g = lease(limiter, "k", 3, 3);
        release(limiter, "k", 5, g.atMillis(), "too-many");
        release(limiter, "k", 3, g.atMillis(), "again");
        assertRoom(limiter, "k", 10, spec + " from " + t0 + ": never below 0");
      }
    }
  }

  @Test
  void release_isIdempotentPerReleaseIdAndKey() {
    for (WindowSpec spec : everyAlgorithm()) {
      ManualClock clock = ManualClock.at(REALISTIC + 3);
      RateLimiter limiter = leasing(clock, Limit.of(10, spec));
      Grant g = lease(limiter, "k", 6, 6);
      release(limiter, "k", 2, g.atMillis(), "a");
      release(limiter, "k", 2, g.atMillis(), "a");
      assertThat(limiter.tryAcquire("k", 1)).as("%s: a repeated id changed nothing", spec)
          .isEqualTo(Decision.allowed(5));
      release(limiter, "k", 2, g.atMillis(), "b");
      assertThat(limiter.tryAcquire("k", 1)).as("%s: another id acts", spec)
          .isEqualTo(Decision.allowed(6));
      Grant other = lease(limiter, "other-key", 6, 6);
      release(limiter, "other-key", 2, other.atMillis(), "a");
      assertThat(limiter.tryAcquire("other-key", 1)).as("%s: ids are per key", spec)
          .isEqualTo(Decision.allowed(5));
    }
  }

  @Test
  void release_acrossLimits_givesBackInEveryLimitThatStillHoldsTheGrant() {
    for (long t0 : startInstants()) {
      ManualClock clock = ManualClock.at(Math.floorDiv(t0, 1000) * 1000);
      Limit perSecond = Limit.of(10, WindowSpec.panes(SECOND, 10));
      Limit perTen = Limit.of(6, WindowSpec.log(Duration.ofSeconds(10)));
      RateLimiter limiter = leasing(clock, perSecond, perTen);
      Grant g = lease(limiter, "k", 1, 6);
      assertThat(g.permits()).isEqualTo(6);
      release(limiter, "k", 4, g.atMillis(), "r");
      assertThat(limiter.tryAcquire("k", 4)).as("from %d", t0).isEqualTo(Decision.allowed(0));
      assertThat(limiter.tryAcquire("k", 1).deniedBy()).contains(perTen);

      Grant old = lease(limiter, "k2", 6, 6);
      clock.advance(1000); // per second, the grant's pane has left; per ten seconds, not
      release(limiter, "k2", 4, old.atMillis(), "r");
      assertThat(limiter.tryAcquire("k2", 4)).as("from %d", t0).isEqualTo(Decision.allowed(0));
      Decision denied = limiter.tryAcquire("k2", 1);
      assertThat(denied.deniedBy()).contains(perTen);
      assertThat(denied.retryAfterMillis()).as("the grant's 2 left leave first").isEqualTo(9000);
    }
  }

  @Test
  void release_ofAKeyWithoutState_changesNothingAndCreatesNone() {
    ManualClock clock = ManualClock.at(REALISTIC - 1);
    RateLimiter limiter = leasing(clock, Limit.of(10, WindowSpec.panes(SECOND, 10)),
        Limit.of(20, WindowSpec.log(SECOND)), Limit.of(30, WindowSpec.weighted(SECOND)));
    release(limiter, "never-seen", 3, clock.millis(), "x");
    assertThat(limiter.holdsState("never-seen")).isFalse();
    assertRoom(limiter, "never-seen", 10, "a release of an unknown key");
  }

  @Test
  void leaseAndRelease_againstConcurrentTryAcquire_keepExactTotals() throws Exception {
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(REALISTIC + 5);
        RateLimiter limiter = leasing(clock, Limit.of(1_000, spec));
        ReferenceModel model = new ReferenceModel();
        AtomicLong ids = new AtomicLong();
        for (int phase = 0; phase < 3; phase++) {
          long t = clock.millis();
          long room = 1_000 - model.count("hot", spec, t);
          AtomicLong next = new AtomicLong();
          long recorded = Together.sum(pool, threads, Duration.ofSeconds(120), () -> {
            boolean leaser = (next.getAndIncrement() & 1) == 1;
            long net = 0;
            for (int i = 0; i < operationsPerThread(); i++) {
              if (!leaser) {
                net += limiter.tryConsume("hot", 1) ? 1 : 0;
                continue;
              }
              Grant g = lease(limiter, "hot", 1, 1 + i % 16);
              long back = g.permits() * (i % 3) / 2; // none, half or all of it
              if (back > 0) {
                release(limiter, "hot", back, g.atMillis(), "c" + ids.incrementAndGet());
              }
              net += g.permits() - back;
            }
            return net;
          });
          assertThat(recorded).as("%s phase %d: never more than the room", spec, phase)
              .isLessThanOrEqualTo(room);
          model.record("hot", t, recorded);
          clock.advance(300);
        }
        long room = 1_000 - model.count("hot", spec, clock.millis());
        assertRoom(limiter, "hot", room, spec + ": the totals are exact");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void badInput_isRefusedAndChangesNothing() {
    ManualClock clock = ManualClock.at(REALISTIC);
    RateLimiter limiter = leasing(clock, Limit.of(10, WindowSpec.panes(SECOND, 10)),
        Limit.of(3, WindowSpec.log(SECOND)));
    assertThatThrownBy(() -> limiter.lease("k", 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minPermits must be in [1, 3], was 0");
    assertThatThrownBy(() -> limiter.lease("k", 2, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxPermits must be in [2, 3], was 1");
    assertThatThrownBy(() -> limiter.lease("k", 1, 4))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 4");
    assertThatThrownBy(() -> limiter.lease(null, 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> limiter.lease("x".repeat(257), 1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> limiter.leaseAsync("k", -1, 1))
        .isInstanceOf(IllegalArgumentException.class);
    long at = clock.millis();
    Grant g = lease(limiter, "k", 1, 1);
    assertThatThrownBy(() -> limiter.releaseAsync("k", 0, at, "id"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits must be in [1, 3], was 0");
    assertThatThrownBy(() -> limiter.releaseAsync("k", 4, at, "id"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 4");
    for (String id : new String[] {null, "", "x".repeat(65), "a b", "é", "a/b"}) {
      assertThatThrownBy(() -> limiter.releaseAsync("k", 1, at, id)).as("id %s", id)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("releaseId must be 1 to 64 characters of [A-Za-z0-9_.:-]");
    }
    assertThatThrownBy(() -> limiter.releaseAsync("", 1, at, "id"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(g.permits()).isEqualTo(1);
    assertRoom(limiter, "k", 2, "bad input changed nothing");
  }
}
