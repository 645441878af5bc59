package io.windowpane.internal.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Randomized stress for a counter's hot path (stripes for {@code record}, see
 * {@link PaneWindow}): 2, 4 and 8 threads record on one key at one instant, phase after phase,
 * while one of them also adds (which makes a hot pane exact) and counts (which reads the
 * stripes' snapshot). After every phase the window count must equal a model that sums every
 * event by pane: nothing lost or counted twice when a hot pane is made exact, closed, or leaves
 * the window, and when a full stripe sends its thread back to the pane word. Seeded: a failure
 * names its seed and repeats (the thread interleaving aside).
 */
class HotCounterTest {

  private static final long SEED = 0x5eed_c0L;
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
  void panes_recordFromManyThreads_countsEveryEventOnce(int threads) throws Exception {
    recordAndCount(threads, false);
  }

  @ParameterizedTest(name = "{0} threads")
  @ValueSource(ints = {2, 4, 8})
  void weighted_recordFromManyThreads_countsEveryEventOnce(int threads) throws Exception {
    recordAndCount(threads, true);
  }

  @ParameterizedTest(name = "{0} threads")
  @ValueSource(ints = {2, 4, 8})
  void engineCounter_recordFromManyThreads_staysExact(int threads) throws Exception {
    pool = Executors.newFixedThreadPool(threads);
    Random random = new Random(SEED ^ (threads * 0x9E3779B9L));
    WindowSpec spec = WindowSpec.panes(Duration.ofSeconds(1), 10);
    ManualClock clock = ManualClock.at(1_000_000);
    KeyTable table = new KeyTable(
        now -> new KeyState(new Window[] {LocalEngine.window(spec, -1, now)}, now),
        spec.expiryMillis(), 1_000, 1_000, clock.millis());
    LocalCounterStore store = new LocalCounterStore(clock, table, spec);
    Model model = new Model(100, 10, false);
    // Whether the key stripes depends on the threads overlapping, which a busy machine may not
    // give (the striped windows above cover the path for sure); the counts must be exact anyway.
    for (int phase = 0; phase < 16; phase++) {
      long now = clock.advance(100 * random.nextInt(3) + random.nextInt(100));
      long[][] work = work(threads, random, 20_000);
      runTogether(work, n -> store.record("k", n));
      model.add(now, total(work));
      assertThat(store.count("k")).as("seed %s phase %s", SEED, phase)
          .isEqualTo(model.count(now));
    }
  }

  private void recordAndCount(int threads, boolean weighted) throws Exception {
    pool = Executors.newFixedThreadPool(threads);
    long viaStripes = 0;
    for (long start : STARTS) {
      Random random = new Random(SEED + threads * 31L + (weighted ? 7 : 0) + start);
      long chunk = 1 + random.nextInt(3_000); // small chunks send threads back to the slot
      long paneMillis = weighted ? 100 : 10;
      int panes = weighted ? 2 : 5;
      PaneWindow w = PaneWindow.stripedCounter(paneMillis, panes, weighted, 8, chunk, start);
      Model model = new Model(paneMillis, panes, weighted);
      long now = start;
      for (int phase = 0; phase < PHASES; phase++) {
        now += weighted ? random.nextInt(220) : random.nextInt(60);
        long at = now;
        long[][] work = work(threads, random, 2_000);
        long[] added = new long[1];
        runTogether(work, n -> {
          if (n == 4) { // one in four on average: an add (makes the pane exact) and a count
            long c = w.add(at, n);
            assertThat(c).isGreaterThanOrEqualTo(n);
            synchronized (added) {
              added[0] += n;
            }
            w.count(at);
          } else {
            w.record(at, n);
          }
        });
        model.add(at, total(work));
        String where = String.format("seed %s start %s chunk %s phase %s", SEED, start, chunk,
            phase);
        assertThat(w.count(at)).as(where).isEqualTo(model.count(at));
        viaStripes += w.stripeSpent(at);
      }
    }
    assertThat(viaStripes).as("events recorded through stripes").isPositive();
  }

  /** Events by pane, and the window count of either algorithm. */
  private static final class Model {
    private final long paneMillis;
    private final int panes;
    private final boolean weighted;
    private final Map<Long, Long> byPane = new HashMap<>();

    Model(long paneMillis, int panes, boolean weighted) {
      this.paneMillis = paneMillis;
      this.panes = panes;
      this.weighted = weighted;
    }

    void add(long now, long n) {
      byPane.merge(Math.floorDiv(now, paneMillis), n, Long::sum);
    }

    long count(long now) {
      long pe = Math.floorDiv(now, paneMillis);
      if (weighted) {
        long previous = byPane.getOrDefault(pe - 1, 0L);
        long elapsed = now - pe * paneMillis;
        return byPane.getOrDefault(pe, 0L)
            + WideMath.mulDivCeil(previous, paneMillis - elapsed, paneMillis);
      }
      long sum = 0;
      for (long q = pe - panes + 1; q <= pe; q++) {
        sum += byPane.getOrDefault(q, 0L);
      }
      return sum;
    }
  }

  private static long total(long[][] work) {
    long sum = 0;
    for (long[] events : work) {
      for (long n : events) {
        sum += n;
      }
    }
    return sum;
  }

  /** About {@code perThread} calls for each of {@code threads} threads, 1 to 4 events each. */
  private static long[][] work(int threads, Random random, int perThread) {
    long[][] work = new long[threads][];
    for (int t = 0; t < threads; t++) {
      work[t] = new long[perThread / 2 + random.nextInt(perThread)];
      for (int k = 0; k < work[t].length; k++) {
        work[t][k] = 1 + random.nextInt(4);
      }
    }
    return work;
  }

  private interface Call {
    void run(long n);
  }

  /** Runs each thread's calls, every thread released at once; rethrows any failure. */
  private void runTogether(long[][] work, Call call) throws Exception {
    CyclicBarrier start = new CyclicBarrier(work.length);
    List<Future<?>> done = new ArrayList<>();
    for (long[] events : work) {
      done.add(pool.submit(() -> {
        start.await(10, TimeUnit.SECONDS);
        for (long n : events) {
          call.run(n);
        }
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
  }
}
