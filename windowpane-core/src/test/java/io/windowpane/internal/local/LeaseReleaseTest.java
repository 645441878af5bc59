package io.windowpane.internal.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.TopKey;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.spi.Grant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The local engine's own side of leases and releases, beyond the conformance group: releases
 * into a hot (striped) pane and into a closed pane whose sum is cached, log entries split by a
 * lagging clock, top keys, and the memory of release ids. The shared rules are checked by
 * {@code LimiterConformance.Leases} in windowpane-testkit.
 */
class LeaseReleaseTest {

  private static final long LIMIT = 1_000;

  @Test
  void release_intoAHotPane_isExactAndKeepsTheStripes() {
    long now = 5_000;
    PaneWindow w = PaneWindow.striped(100, 10, false, 8, 16, now);
    for (int i = 0; i < 50; i++) {
      assertThat(w.reserve(now, 1, LIMIT)).isNotEqualTo(Window.DENIED);
    }
    assertThat(w.hotAt(now)).isTrue();
    assertThat(w.stripeSpent(now)).as("this thread's stripe spent its chunk").isEqualTo(16);
    assertThat(w.release(now, now, 20)).isEqualTo(20);
    assertThat(w.count(now)).isEqualTo(30);
    assertThat(w.hotAt(now)).as("enough true count: the stripes keep spending").isTrue();
    assertThat(w.release(now, now, 45)).as("never below 0").isEqualTo(30);
    assertThat(w.hotAt(now)).as("too little for sure: made exact first").isFalse();
    assertThat(w.count(now)).isZero();
    for (int i = 0; i < LIMIT; i++) {
      assertThat(w.reserve(now, 1, LIMIT)).as("permit %d", i).isNotEqualTo(Window.DENIED);
    }
    assertThat(w.reserve(now, 1, LIMIT)).isEqualTo(Window.DENIED);
  }

  @Test
  void release_intoAHotPaneFromAnotherThreadsStripe_isExact() throws Exception {
    long now = 5_000;
    PaneWindow w = PaneWindow.striped(100, 10, false, 8, 16, now);
    Thread other = new Thread(() -> {
      for (int i = 0; i < 10; i++) {
        w.reserve(now, 1, LIMIT);
      }
    });
    other.start();
    other.join(10_000);
    assertThat(w.hotAt(now)).isTrue();
    assertThat(w.release(now, now, 4)).isEqualTo(4);
    assertThat(w.count(now)).isEqualTo(6);
    assertThat(w.remaining(now, LIMIT)).as("a lower bound on a hot pane")
        .isLessThanOrEqualTo(LIMIT - 6);
    assertThat(w.reserve(now, LIMIT - 6, LIMIT)).isNotEqualTo(Window.DENIED);
    assertThat(w.reserve(now, 1, LIMIT)).isEqualTo(Window.DENIED);
  }

  @Test
  void release_intoAClosedPane_givesRoomAtOnceDespiteTheCachedOlderSum() {
    PaneWindow w = PaneWindow.panes(100, 10, 10, 0);
    assertThat(w.reserve(0, 6, 10)).isNotEqualTo(Window.DENIED);
    assertThat(w.reserve(200, 1, 10)).as("closes pane 0, caches its sum")
        .isNotEqualTo(Window.DENIED);
    assertThat(w.release(250, 0, 4)).isEqualTo(4);
    assertThat(w.count(250)).isEqualTo(3);
    assertThat(w.reserve(250, 7, 10)).isNotEqualTo(Window.DENIED);
    assertThat(w.reserve(250, 1, 10)).isEqualTo(Window.DENIED);
  }

  /**
   * Seeded: 4 threads acquire and release at one instant per phase, each releasing only permits
   * it acquired itself (so every release must take exactly what it asks), often into closed
   * panes whose sum other threads cache meanwhile. At every phase boundary the count must equal
   * the ledgers' net permits in the window: a cached sum that missed a release would show.
   */
  @Test
  void releases_racingDecisionsAndClosing_leaveExactCountsAtEveryPhase() throws Exception {
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (boolean striped : new boolean[] {false, true}) {
        long start = -1_000_003;
        PaneWindow w = striped ? PaneWindow.striped(100, 10, false, 8, 16, start)
            : PaneWindow.panes(100, 10, 100_000, start);
        List<List<long[]>> ledgers = new ArrayList<>();
        for (int k = 0; k < threads; k++) {
          ledgers.add(new ArrayList<>());
        }
        for (int phase = 0; phase < 60; phase++) {
          long t = start + phase * 37L;
          CyclicBarrier go = new CyclicBarrier(threads);
          List<Future<?>> done = new ArrayList<>();
          for (int k = 0; k < threads; k++) {
            List<long[]> mine = ledgers.get(k);
            Random random = new Random(31L * phase + k + (striped ? 1000 : 0));
            done.add(pool.submit(() -> {
              go.await(10, TimeUnit.SECONDS);
              for (int i = 0; i < 300; i++) {
                long[] e = mine.isEmpty() ? null : mine.get(random.nextInt(mine.size()));
                if (e != null && e[1] > 0 && random.nextInt(3) == 0 && inWindow(e[0], t)) {
                  long k2 = 1 + random.nextInt((int) e[1]);
                  assertThat(w.release(t, e[0], k2)).isEqualTo(k2);
                  e[1] -= k2;
                } else {
                  long n = 1 + random.nextInt(3);
                  assertThat(w.reserve(t, n, 100_000)).isNotEqualTo(Window.DENIED);
                  mine.add(new long[] {t, n});
                }
              }
              return null;
            }));
          }
          for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
          }
          long expected = 0;
          for (List<long[]> mine : ledgers) {
            for (long[] e : mine) {
              expected += inWindow(e[0], t) ? e[1] : 0;
            }
          }
          assertThat(w.count(t)).as("striped %s, phase %d", striped, phase).isEqualTo(expected);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Whether a window of 10 panes of 100 ms at {@code now} holds the pane of {@code at}. */
  private static boolean inWindow(long at, long now) {
    return Math.floorDiv(at, 100) > Math.floorDiv(now, 100) - 10;
  }

  @Test
  void release_intoTheWeightedPreviousWindow_lowersItsWeightedPart() {
    PaneWindow w = PaneWindow.weighted(1_000, 10, 0);
    assertThat(w.reserve(100, 8, 10)).isNotEqualTo(Window.DENIED);
    assertThat(w.count(1_500)).isEqualTo(4); // 8 x 500/1000
    assertThat(w.release(1_500, 100, 6)).isEqualTo(6);
    assertThat(w.count(1_500)).isEqualTo(1); // 2 x 500/1000
    assertThat(w.release(2_000, 100, 2)).as("left the window").isZero();
  }

  @Test
  void release_ofALogWhoseClockLagged_takesFromEveryEntryAtThatInstant() {
    LogWindow w = LogWindow.forLimit(1_000, 10, 0);
    assertThat(w.reserve(100, 3, 10)).isNotEqualTo(Window.DENIED);
    w.commit(100, 3, 0);
    w.reserve(105, 2, 10);
    w.commit(105, 2, 0);
    w.reserve(100, 4, 10); // a lagging clock: a second entry at 100, after the one at 105
    w.commit(100, 4, 0);
    assertThat(w.release(110, 100, 6)).isEqualTo(6);
    assertThat(w.count(110)).isEqualTo(3);
    assertThat(w.release(110, 100, 6)).as("1 left at 100").isEqualTo(1);
    assertThat(w.release(110, 105, 9)).isEqualTo(2);
    assertThat(w.count(110)).isZero();
    assertThat(w.release(110, 107, 1)).as("nothing at 107").isZero();
    assertThat(w.reserve(110, 10, 10)).isNotEqualTo(Window.DENIED);
  }

  @Test
  void lease_withTopKeys_countsTheGrantAsAllowedAndAZeroGrantAsADenial() {
    ManualClock clock = ManualClock.at(10_000);
    try (Windowpane wp = Windowpane.localBuilder().clock(clock).build()) {
      RateLimiter limiter = wp.limiter("top", Quota.of(
          Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10))).withTopKeys(8));
      Grant a = limiter.lease("a", 1, 7).orElseThrow();
      assertThat(a.permits()).isEqualTo(7);
      limiter.tryAcquire("b", 3);
      assertThat(limiter.lease("b", 8, 8).orElseThrow().permits()).isZero();
      limiter.releaseAsync("a", 5, a.atMillis(), "r").toCompletableFuture().join();
      List<TopKey> top = limiter.top(2).orElseThrow();
      assertThat(top).extracting(TopKey::key).containsExactly("a", "b");
      assertThat(top.get(0).count()).as("a release does not lower the sketch").isEqualTo(7);
      assertThat(limiter.topDenied(1).orElseThrow().get(0).key()).isEqualTo("b");
      assertThat(limiter.lease("a", 1, 10).orElseThrow().permits()).as("5 back, 2 used")
          .isEqualTo(8);
    }
  }

  @Test
  void release_afterTheKeyWasEvictedAndCameBack_changesNothingInItsNewState() {
    ManualClock clock = ManualClock.at(10_000);
    try (Windowpane wp = Windowpane.localBuilder().clock(clock).maxKeys(2).build()) {
      RateLimiter limiter =
          wp.limiter("evict", Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10)));
      Grant g = limiter.lease("k", 5, 5).orElseThrow();
      clock.advance(1);
      limiter.tryAcquire("a", 1);
      clock.advance(1);
      limiter.tryAcquire("b", 1); // the table is full: "k", idle longest, is evicted
      clock.advance(1);
      assertThat(limiter.tryAcquire("k", 4)).as("a fresh state").isEqualTo(Decision.allowed(6));
      limiter.releaseAsync("k", 5, g.atMillis(), "r").toCompletableFuture().join();
      assertThat(limiter.tryAcquire("k", 6)).isEqualTo(Decision.allowed(0));
      assertThat(limiter.tryAcquire("k", 1).allowed()).isFalse();
    }
  }

  @Test
  void releaseIds_areForgottenOnceNoWindowCanHoldTheGrant() {
    ReleaseIds ids = new ReleaseIds(1_100);
    assertThat(ids.firstTime("k", "a", 1_000, 1_000)).isTrue();
    assertThat(ids.firstTime("k", "a", 1_000, 1_500)).isFalse();
    assertThat(ids.firstTime("other", "a", 1_000, 1_500)).isTrue();
    assertThat(ids.firstTime("k", "b", 9_000, 1_000)).as("a future instant counts as now")
        .isTrue();
    ids.sweep(2_099);
    assertThat(ids.size()).isEqualTo(3);
    ids.sweep(2_100);
    assertThat(ids.size()).isZero();
  }
}
