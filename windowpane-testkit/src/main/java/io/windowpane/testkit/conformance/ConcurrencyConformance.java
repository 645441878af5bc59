package io.windowpane.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many threads on one key: nothing lost, nothing counted twice, no limit ever exceeded. The
 * clock moves in phases (all threads work at one instant, meet at a barrier, the clock steps),
 * so the exact answer of every phase is known and checked against the {@link ReferenceModel}.
 */
public abstract class ConcurrencyConformance extends ConformanceBase {

  /** Threads hammering one key. */
  protected int threads() {
    return 8;
  }

  /** Operations per thread per phase. */
  protected int operationsPerPhase() {
    return 2_000;
  }

  /** Phases (clock positions) per test. */
  protected int phases() {
    return 12;
  }

  private static final Duration SECOND = Duration.ofSeconds(1);

  private static List<WindowSpec> everyAlgorithm() {
    return List.of(WindowSpec.panes(SECOND, 10), WindowSpec.log(SECOND), WindowSpec.weighted(SECOND));
  }

  /** Runs {@code task} on every thread at once; returns the sum of their results. */
  private long everyThread(ExecutorService pool, Callable<Long> task) throws Exception {
    return Together.sum(pool, threads(), Duration.ofSeconds(120), task);
  }

  @Test
  void counters_manyThreadsOneKey_countEveryEventExactlyOnce() throws Exception {
    counterTest();
    ExecutorService pool = Executors.newFixedThreadPool(threads());
    try {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(REALISTIC + 3);
        Windowpane wp = engine(clock);
        WindowCounter counter = wp.counter(uniqueName("conc"), spec);
        ReferenceModel model = new ReferenceModel();
        Random random = new Random(7);
        for (int phase = 0; phase < phases(); phase++) {
          long added = everyThread(pool, () -> {
            long sum = 0;
            for (int i = 0; i < operationsPerPhase(); i++) {
              long n = 1 + (i % 3);
              if (i % 2 == 0) {
                counter.add("hot", n);
              } else {
                counter.record("hot", n); // the local engine stripes these on a hot key
              }
              sum += n;
            }
            return sum;
          });
          model.record("hot", clock.millis(), added);
          assertThat(counter.count("hot")).as("%s phase %d", spec, phase)
              .isEqualTo(model.count("hot", spec, clock.millis()));
          clock.advance(random.nextInt(400));
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void limiters_manyThreadsOneKey_allowExactlyTheRoomLeft() throws Exception {
    limiterTest();
    ExecutorService pool = Executors.newFixedThreadPool(threads());
    try {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(REALISTIC + 3);
        Windowpane wp = engine(clock);
        Limit limit = Limit.of(5_000, spec);
        Quota quota = Quota.of(limit);
        RateLimiter limiter = wp.limiter(uniqueName("conc"), underTest(quota, clock));
        ReferenceModel model = new ReferenceModel();
        Random random = new Random(11);
        for (int phase = 0; phase < phases(); phase++) {
          long t = clock.millis();
          AtomicLong attempts = new AtomicLong();
          long allowed = everyThread(pool, () -> {
            long sum = 0;
            for (int i = 0; i < operationsPerPhase(); i++) {
              long permits = 1 + (i % 2);
              attempts.addAndGet(permits);
              if (limiter.tryConsume("hot", permits)) {
                sum += permits;
              }
            }
            return sum;
          });
          // single permits always fill the room exactly; pairs may leave one permit unused
          long room = limit.permits() - model.count("hot|" + spec, spec, t);
          assertThat(allowed).as("%s phase %d: never more than the room", spec, phase)
              .isLessThanOrEqualTo(room);
          assertThat(allowed).as("%s phase %d: no lost room", spec, phase)
              .isGreaterThanOrEqualTo(Math.min(room, attempts.get()) - 1);
          model.record("hot|" + spec, t, allowed);
          clock.advance(random.nextInt(350));
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void quotas_manyThreadsOneKey_neverExceedAnyLimit() throws Exception {
    limiterTest();
    ExecutorService pool = Executors.newFixedThreadPool(threads());
    try {
      ManualClock clock = ManualClock.at(REALISTIC);
      Windowpane wp = engine(clock);
      Limit perSecond = Limit.of(700, WindowSpec.panes(SECOND, 10));
      Limit perTenSeconds = Limit.of(3_000, WindowSpec.log(Duration.ofSeconds(10)));
      Limit weighted = Limit.of(2_500, WindowSpec.weighted(Duration.ofSeconds(5)));
      RateLimiter limiter = wp.limiter(uniqueName("conc"),
          underTest(Quota.of(perSecond, perTenSeconds, weighted), clock));
      ReferenceModel model = new ReferenceModel();
      for (int phase = 0; phase < phases(); phase++) {
        long t = clock.millis();
        long allowed = everyThread(pool, () -> {
          long sum = 0;
          for (int i = 0; i < operationsPerPhase(); i++) {
            if (limiter.tryConsume("hot", 1)) {
              sum++;
            }
          }
          return sum;
        });
        long room = Long.MAX_VALUE;
        for (Limit l : List.of(perSecond, perTenSeconds, weighted)) {
          room = Math.min(room, l.permits() - model.count(l.name(), l.window(), t));
        }
        long attempts = (long) threads() * operationsPerPhase();
        assertThat(allowed).as("phase %d", phase).isEqualTo(Math.max(0, Math.min(room, attempts)));
        for (Limit l : List.of(perSecond, perTenSeconds, weighted)) {
          model.record(l.name(), t, allowed);
        }
        clock.advance(600);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
