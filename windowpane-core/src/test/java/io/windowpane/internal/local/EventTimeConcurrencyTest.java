package io.windowpane.internal.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.EventTime;
import io.windowpane.ManualClock;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Event-time adds from several threads at once, mixed with in-order adds and records (which
 * stripe a hot pane), on one key: once the threads are done, the count at every later instant is
 * exactly the count of the same events in order. The log's out-of-order entries and the pane
 * ring's closed-pane adds are the paths under test; the clock stands still while the threads
 * run, then steps through the window.
 */
class EventTimeConcurrencyTest {

  private static final int THREADS = 4;
  private static final int PER_THREAD = 3_000;
  private ExecutorService pool;

  @AfterEach
  void stop() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  @Test
  void log_concurrentOutOfOrderAdds_countExactlyAtEveryLaterInstant() throws Exception {
    check(WindowSpec.log(Duration.ofSeconds(1)), 11);
  }

  @Test
  void panes_concurrentOutOfOrderAddsAndRecords_countExactlyAtEveryLaterInstant()
      throws Exception {
    check(WindowSpec.panes(Duration.ofSeconds(1), 10), 12);
  }

  @Test
  void weighted_concurrentOutOfOrderAdds_countExactlyAtEveryLaterInstant() throws Exception {
    check(WindowSpec.weighted(Duration.ofSeconds(1)), 13);
  }

  private void check(WindowSpec shape, long seed) throws Exception {
    long start = 1_700_000_000_437L;
    ManualClock clock = ManualClock.at(start);
    Windowpane wp = Windowpane.localBuilder().clock(clock).build();
    WindowSpec spec = shape.withEventTime(EventTime.defaults().droppingLate());
    WindowCounter counter = wp.counter("c", spec);
    long earliest = io.windowpane.spi.EventTimeResult.earliestMillis(spec, start);
    pool = Executors.newFixedThreadPool(THREADS);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<long[]>>> done = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      Random random = new Random(seed * 31 + t);
      done.add(pool.submit(() -> {
        List<long[]> mine = new ArrayList<>();
        go.await();
        for (int i = 0; i < PER_THREAD; i++) {
          long n = 1 + random.nextInt(3);
          if (random.nextInt(4) == 0) { // in order, now: adds and (striping) records
            if (random.nextBoolean()) {
              counter.add("k", n);
            } else {
              counter.record("k", n);
            }
            mine.add(new long[] {start, n});
          } else {
            long at = earliest + random.nextInt((int) (start - earliest + 1));
            counter.add("k", n, at);
            mine.add(new long[] {at, n});
          }
        }
        return mine;
      }));
    }
    go.countDown();
    List<long[]> events = new ArrayList<>();
    for (Future<List<long[]>> f : done) {
      events.addAll(f.get());
    }
    assertThat(counter.lateEventsDropped()).isZero();
    for (long step = 0; step <= spec.windowMillis() + spec.resolutionMillis(); step += 7) {
      long now = start + step;
      clock.set(now);
      assertThat(counter.count("k")).as("%s at start + %d", spec, step)
          .isEqualTo(inOrder(events, spec, now));
    }
  }

  /** The window count at {@code now} of {@code events} ({time, n}), from the definitions. */
  private static long inOrder(List<long[]> events, WindowSpec spec, long now) {
    long w = spec.windowMillis();
    long r = spec.resolutionMillis();
    long current = 0;
    long previous = 0;
    for (long[] e : events) {
      switch (spec.algorithm()) {
        case SLIDING_LOG:
          current += e[0] > now - w && e[0] <= now ? e[1] : 0;
          break;
        case SLIDING_PANES:
          long q = Math.floorDiv(e[0], r);
          current += q > Math.floorDiv(now, r) - spec.panes() && q <= Math.floorDiv(now, r)
              ? e[1] : 0;
          break;
        default:
          long k = Math.floorDiv(e[0], w);
          current += k == Math.floorDiv(now, w) ? e[1] : 0;
          previous += k == Math.floorDiv(now, w) - 1 ? e[1] : 0;
      }
    }
    long elapsed = now - Math.floorDiv(now, w) * w;
    return current + (previous * (w - elapsed) + w - 1) / w; // rounded up, as the engine
  }
}
