package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.Together;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * 8 client threads x 25,000 calls on ONE key through one engine: exactly the limit allowed per
 * window, for every layout, and every {@code add} counted once. The clock is manual and moves
 * only between rounds (all threads meet at a barrier), so every round's exact answer is known.
 * Each round offers the limit about 2.2 times over (16,672 attempts for 7,500), as the
 * conformance suite's concurrency part does at a smaller scale: a decision that is not atomic,
 * or a coalesced batch that loses or repeats a call, shows in thousands of contended calls.
 */
@ExtendWith(RedisServerExtension.class)
class ExactTotalsIT {

  private static final int THREADS = 8;
  private static final int CALLS_PER_THREAD = 25_000;
  private static final int ROUNDS = 4;
  private static final long LIMIT = 7_500;

  private final RedisServer redis;

  ExactTotalsIT(RedisServer redis) {
    this.redis = redis;
  }

  private Windowpane engine(ManualClock clock) {
    return TestEngines.standalone(redis, clock, ScriptMode.AUTO);
  }

  /** Runs {@code calls} on every thread at once; returns the sum of what they return. */
  private static long allThreads(ExecutorService pool, Callable<Long> calls) throws Exception {
    return Together.sum(pool, THREADS, Duration.ofMinutes(5), calls);
  }

  @Test
  void tryAcquire_8threadsX25k_allowExactlyTheLimitPerWindow() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = engine(clock)) {
      List<WindowSpec> specs = List.of(WindowSpec.panes(Duration.ofSeconds(1), 10),
          WindowSpec.weighted(Duration.ofSeconds(1)), WindowSpec.log(Duration.ofSeconds(1)));
      // 25,000 calls per thread in all: spread over the layouts and rounds
      int perRound = CALLS_PER_THREAD / (specs.size() * ROUNDS) + 1;
      for (WindowSpec spec : specs) {
        RateLimiter limiter = wp.limiter("exact-" + spec.algorithm(), Limit.of(LIMIT, spec));
        for (int round = 0; round < ROUNDS; round++) {
          long allowed = allThreads(pool, () -> {
            long mine = 0;
            for (int i = 0; i < perRound; i++) {
              if (limiter.tryConsume("hot", 1)) {
                mine++;
              }
            }
            return mine;
          });
          assertThat(allowed).as("%s round %d: %d attempts", spec, round, perRound * THREADS)
              .isEqualTo(LIMIT);
          clock.advance(2_000); // a whole new window for every layout
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void add_8threadsX25k_countsEveryEventOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = engine(clock)) {
      WindowCounter counter = wp.counter("exact-add", WindowSpec.panes(Duration.ofMinutes(1), 60));
      long added = allThreads(pool, () -> {
        long mine = 0;
        for (int i = 0; i < CALLS_PER_THREAD; i++) {
          long n = 1 + (i % 3);
          counter.add("hot", n);
          mine += n;
        }
        return mine;
      });
      assertThat(added).isEqualTo(THREADS * (CALLS_PER_THREAD / 3 * 6L + 1));
      assertThat(counter.count("hot")).isEqualTo(added);
    } finally {
      pool.shutdownNow();
    }
  }
}
