package io.windowpane.internal.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Randomized stress at the limit for the hot-pane path (stripes, see {@link PaneWindow}):
 * 2, 4 and 8 threads decide together at one instant, phase after phase, and the totals must be
 * exact. With one permit per request a phase allows exactly min(room, attempts), where room is
 * the limit minus the window count before the phase; with mixed permits it allows no more than
 * the room, and every denied request of n permits is justified by the count after the phase
 * (after + n > limit: counts only grow at a fixed instant). Every phase also checks the window
 * count against the permits allowed (nothing lost, nothing counted twice).
 *
 * <p>Windows are built striped from the start with a random chunk, so the hot path runs from the
 * first pane; one test also lets the engine stripe a key by itself under contention. Seeded:
 * a failure names its seed and repeats (the thread interleaving aside).
 */
class HotPaneExactnessTest {

  private static final long SEED = 0x5eed_13L;
  private static final int PHASES = 40;
  private static final long[] STARTS = {-1_000_003, 1_000, Long.MAX_VALUE / 2 + 7};

  private ExecutorService pool;

  @AfterEach
  void stopPool() throws InterruptedException {
    if (pool != null) {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @ParameterizedTest(name = "{0} threads")
  @ValueSource(ints = {2, 4, 8})
  void panes_oneThousandPerWindow_allowsExactlyMinOfRoomAndAttempts(int threads) throws Exception {
    windowAtTheLimit(threads, false, false);
  }

  @ParameterizedTest(name = "{0} threads")
  @ValueSource(ints = {2, 4, 8})
  void panes_mixedPermits_neverPassesTheLimitAndDeniesOnlyWhatCannotFit(int threads)
      throws Exception {
    windowAtTheLimit(threads, false, true);
  }

  @ParameterizedTest(name = "{0} threads")
  @ValueSource(ints = {2, 4, 8})
  void weighted_oneThousandPerWindow_allowsExactlyMinOfRoomAndAttempts(int threads)
      throws Exception {
    windowAtTheLimit(threads, true, false);
  }

  @ParameterizedTest(name = "{0} threads")
  @ValueSource(ints = {2, 4, 8})
  void weighted_mixedPermits_neverPassesTheLimitAndDeniesOnlyWhatCannotFit(int threads)
      throws Exception {
    windowAtTheLimit(threads, true, true);
  }

  @ParameterizedTest(name = "{0} threads")
  @ValueSource(ints = {2, 4, 8})
  void quotaOfTwoLimits_allowsExactlyTheSmallestRoom(int threads) throws Exception {
    quotaAtTheLimit(threads, false);
  }

  @ParameterizedTest(name = "{0} threads")
  @ValueSource(ints = {2, 4, 8})
  void quotaOfTwoLimits_mixedPermits_countsExactlyWhatItAllows(int threads) throws Exception {
    quotaAtTheLimit(threads, true);
  }

  @ParameterizedTest(name = "{0} threads")
  @ValueSource(ints = {2, 4, 8})
  void engineWindow_stripesByItselfUnderContention_andStaysExact(int threads) throws Exception {
    pool = Executors.newFixedThreadPool(threads);
    Random random = new Random(SEED ^ (threads * 0x9E3779B9L));
    long limit = 20_000;
    WindowSpec spec = WindowSpec.panes(Duration.ofSeconds(1), 10);
    Quota quota = Quota.of(Limit.of(limit, spec));
    ManualClock clock = ManualClock.at(1_000_000);
    KeyTable table = new KeyTable(
        now -> new KeyState(new Window[] {LocalEngine.window(spec, limit, now)}, now),
        quota.expiryMillis(), 1_000, 1_000, clock.millis());
    LocalLimiterStore store = new LocalLimiterStore(clock, table, quota);
    for (int phase = 0; phase < 16; phase++) {
      long now = clock.advance(100 * random.nextInt(3) + random.nextInt(100));
      long before = counts(table, now, 1)[0];
      long room = limit - before;
      Tally tally = run(threads, random, Math.max(room, 1), false, n -> store.tryConsume("k", n));
      long after = counts(table, now, 1)[0];
      assertThat(after).as("seed %s phase %s", SEED, phase).isEqualTo(before + tally.permits);
      assertThat(tally.count).as("seed %s phase %s", SEED, phase)
          .isEqualTo(Math.min(room, tally.attempts));
    }
  }

  @ParameterizedTest(name = "{0} threads")
  @ValueSource(ints = {2, 4})
  void remaining_whileStripesSpend_staysWithinTheCountsAndKeepsThePaneHot(int threads)
      throws Exception {
    pool = Executors.newFixedThreadPool(threads);
    long limit = 1_000_000;
    long now = 5_000;
    PaneWindow w = PaneWindow.striped(100, 10, false, 8, limit / 32, now);
    assertThat(w.reserve(now, 1, limit)).isNotEqualTo(Window.DENIED);
    assertThat(w.hotAt(now)).as("the first request opens the pane hot").isTrue();
    long allotment = 8 * (limit / 32);
    assertThat(w.remaining(now, limit)).as("a lower bound: the unspent allotment counts")
        .isEqualTo(limit - allotment);
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Future<long[]>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      boolean reader = t == 0;
      done.add(pool.submit(() -> {
        start.await(10, TimeUnit.SECONDS);
        long lowest = Long.MAX_VALUE;
        long highest = Long.MIN_VALUE;
        for (int k = 0; k < 20_000; k++) {
          if (reader) { // an allowed tryAcquire's Decision reads this after every decision
            long r = w.remaining(now, limit);
            lowest = Math.min(lowest, r);
            highest = Math.max(highest, r);
          } else {
            assertThat(w.reserve(now, 1, limit)).isNotEqualTo(Window.DENIED);
          }
        }
        return new long[] {lowest, highest};
      }));
    }
    long[] seen = done.get(0).get(60, TimeUnit.SECONDS);
    for (Future<long[]> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    long after = 1 + 20_000L * (threads - 1);
    assertThat(w.count(now)).isEqualTo(after);
    assertThat(seen[0]).as("lowest remaining seen")
        .isGreaterThanOrEqualTo(limit - after - allotment);
    assertThat(seen[1]).as("highest remaining seen").isLessThanOrEqualTo(limit - 1);
    assertThat(w.hotAt(now)).as("remaining never made the pane exact").isTrue();
    assertThat(w.stripeSpent(now)).as("permits through stripes").isPositive();
  }

  private void windowAtTheLimit(int threads, boolean weighted, boolean mixed) throws Exception {
    pool = Executors.newFixedThreadPool(threads);
    long limit = 1_000;
    long viaStripes = 0;
    for (long start : STARTS) {
      Random random = new Random(SEED + threads * 31L + (weighted ? 7 : 0) + (mixed ? 3 : 0)
          + start);
      long chunk = 1 + random.nextInt(40);
      long paneMillis = weighted ? 100 : 10;
      int panes = weighted ? 2 : 5;
      PaneWindow w = PaneWindow.striped(paneMillis, panes, weighted, 8, chunk, start);
      long now = start;
      for (int phase = 0; phase < PHASES; phase++) {
        now += weighted ? random.nextInt(220) : random.nextInt(60);
        long at = now;
        long before = w.count(at);
        long room = limit - before;
        Tally tally = run(threads, random, Math.max(room, 1), mixed,
            n -> w.reserve(at, n, limit) != Window.DENIED);
        long after = w.count(at);
        String where = String.format("seed %s start %s chunk %s phase %s", SEED, start, chunk,
            phase);
        assertThat(after).as(where).isEqualTo(before + tally.permits);
        assertThat(after).as(where).isLessThanOrEqualTo(limit);
        if (mixed) {
          assertThat(after + tally.smallestDenied).as(where).isGreaterThan(limit);
        } else {
          assertThat(tally.count).as(where).isEqualTo(Math.min(room, tally.attempts));
        }
        viaStripes += w.stripeSpent(at);
      }
    }
    assertThat(viaStripes).as("permits taken through stripes").isPositive();
  }

  private void quotaAtTheLimit(int threads, boolean mixed) throws Exception {
    pool = Executors.newFixedThreadPool(threads);
    Random random = new Random(SEED * 17 + threads + (mixed ? 1 : 0));
    long[] limits = {600, 1_500};
    Quota quota = Quota.of(Limit.of(limits[0], WindowSpec.panes(Duration.ofSeconds(1), 10)),
        Limit.of(limits[1], WindowSpec.panes(Duration.ofSeconds(10), 10)));
    ManualClock clock = ManualClock.at(-7_777_777);
    long chunk0 = 1 + random.nextInt(15);
    long chunk1 = 1 + random.nextInt(40);
    KeyTable table = new KeyTable(now -> new KeyState(new Window[] {
        PaneWindow.striped(100, 10, false, 8, chunk0, now),
        PaneWindow.striped(1_000, 10, false, 8, chunk1, now)}, now),
        quota.expiryMillis(), 1_000, 1_000, clock.millis());
    LocalLimiterStore store = new LocalLimiterStore(clock, table, quota);
    long viaStripes = 0;
    for (int phase = 0; phase < PHASES; phase++) {
      long now = clock.advance(random.nextInt(400));
      long[] before = counts(table, now, 2);
      long room = Math.min(limits[0] - before[0], limits[1] - before[1]);
      Tally tally = run(threads, random, Math.max(room, 1), mixed,
          n -> store.tryConsume("k", n));
      long[] after = counts(table, now, 2);
      for (int i = 0; i < 2; i++) {
        String where = String.format("seed %s phase %s limit %s", SEED, phase, i);
        assertThat(after[i]).as(where).isEqualTo(before[i] + tally.permits);
        assertThat(after[i]).as(where).isLessThanOrEqualTo(limits[i]);
      }
      if (!mixed) {
        assertThat(tally.count).as("phase %s", phase).isEqualTo(Math.min(room, tally.attempts));
      }
      KeyState state = table.forRead("k", now);
      if (state != null) {
        viaStripes += ((PaneWindow) state.windows[0]).stripeSpent(now)
            + ((PaneWindow) state.windows[1]).stripeSpent(now);
      }
    }
    assertThat(viaStripes).as("permits taken through stripes").isPositive();
  }

  private static long[] counts(KeyTable table, long now, int windows) {
    KeyState state = table.forRead("k", now);
    long[] counts = new long[windows];
    for (int i = 0; state != null && i < windows; i++) {
      counts[i] = state.windows[i].count(now);
    }
    return counts;
  }

  /** What one phase allowed and denied. */
  private static final class Tally {
    long attempts;
    long count;
    long permits;
    long smallestDenied = Long.MAX_VALUE;
  }

  /**
   * Runs about {@code room} x [0.5, 2) requests split over {@code threads} threads released
   * together; permits 1, or 1 to 4 when {@code mixed}.
   */
  private Tally run(int threads, Random random, long room, boolean mixed, LongPredicate decide)
      throws Exception {
    long total = room / 2 + (long) (random.nextDouble() * room * 1.5) + 1;
    List<long[]> work = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long[] permits = new long[(int) (total / threads) + 1];
      for (int k = 0; k < permits.length; k++) {
        permits[k] = mixed ? 1 + random.nextInt(4) : 1;
      }
      work.add(permits);
    }
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Future<Tally>> done = new ArrayList<>();
    for (long[] permits : work) {
      done.add(pool.submit(() -> {
        Tally mine = new Tally();
        start.await(10, TimeUnit.SECONDS);
        for (long n : permits) {
          mine.attempts++;
          if (decide.test(n)) {
            mine.count++;
            mine.permits += n;
          } else {
            mine.smallestDenied = Math.min(mine.smallestDenied, n);
          }
        }
        return mine;
      }));
    }
    Tally sum = new Tally();
    for (Future<Tally> f : done) {
      Tally t = f.get(60, TimeUnit.SECONDS);
      sum.attempts += t.attempts;
      sum.count += t.count;
      sum.permits += t.permits;
      sum.smallestDenied = Math.min(sum.smallestDenied, t.smallestDenied);
    }
    return sum;
  }
}
