package io.windowpane.bench;

import com.google.common.util.concurrent.RateLimiter;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/*
 * Design note: the implementations side by side, each set up the way its users would set it up
 * for "at most L events per key in a sliding 1-second window", on one hot key.
 *
 * Limits of the ALLOWED scenario (never reached during a run, unless noted):
 *   windowpane SLIDING_PANES, SLIDING_WEIGHTED  1e12 per second (the largest is 2^40 - 1)
 *   windowpane SLIDING_LOG                       2^20 per second, the largest a log accepts: this
 *                                                is REACHED at the rates measured here, so the
 *                                                log's "allowed" run is partly a denied run
 *   Sentinel LeapArray                           1e12 per second
 *   Resilience4j AtomicRateLimiter               Integer.MAX_VALUE per 1 s cycle (its limit is an int)
 *   Bucket4j                                     1e9 tokens, refilled greedily 1e9 per second (its
 *                                                highest refill rate is 1 token per nanosecond)
 *   Guava RateLimiter                            1e9 permits per second (a rate, not a window)
 *   naive synchronized deque                     1,000,000 per second, so its memory stays bounded
 *                                                (about 24 MB of boxed Longs): reached above 1M/s
 * The DENIED scenario uses 100 per second everywhere, AT_LIMIT 10,000,000 per second.
 *
 * Time: windowpane, Sentinel, Bucket4j and the naive log read System.currentTimeMillis().
 * Resilience4j and Guava read System.nanoTime() and cannot be given another clock.
 */

/**
 * The rate limiters compared by the benchmarks, as a JMH {@code @Param}; each builds a
 * {@link Decider} for one hot key and a {@link Scenario}.
 */
public enum Implementation {

  /** windowpane local engine, {@code SLIDING_PANES} 1 s / 10 panes, {@code tryConsume}. */
  WINDOWPANE_PANES {
    @Override
    Decider create(Scenario scenario) {
      return windowpane(WindowSpec.panes(Duration.ofSeconds(1), 10), allowedOr(scenario, 1_000_000_000_000L));
    }
  },

  /** windowpane local engine, {@code SLIDING_WEIGHTED} 1 s, {@code tryConsume}. */
  WINDOWPANE_WEIGHTED {
    @Override
    Decider create(Scenario scenario) {
      return windowpane(WindowSpec.weighted(Duration.ofSeconds(1)), allowedOr(scenario, 1_000_000_000_000L));
    }
  },

  /**
   * {@link #WINDOWPANE_PANES} with top keys on ({@code Quota.withTopKeys()}, 100 counters): what
   * feeding the heavy-hitters sketch costs per decision.
   */
  WINDOWPANE_PANES_TOP_KEYS {
    @Override
    Decider create(Scenario scenario) {
      return windowpane(WindowSpec.panes(Duration.ofSeconds(1), 10), allowedOr(scenario, 1_000_000_000_000L), true);
    }
  },

  /** windowpane local engine, exact {@code SLIDING_LOG} 1 s, {@code tryConsume}. */
  WINDOWPANE_LOG {
    @Override
    Decider create(Scenario scenario) {
      return windowpane(WindowSpec.log(Duration.ofSeconds(1)), allowedOr(scenario, Limit.MAX_LOG_PERMITS));
    }
  },

  /** Sentinel 1.8.8's LeapArray statistic (10 buckets over 1 s): pass() check, then addPass(1). */
  SENTINEL {
    @Override
    Decider create(Scenario scenario) {
      return new SentinelLeapArray(10, 1000, allowedOr(scenario, 1_000_000_000_000L));
    }
  },

  /** Resilience4j 2.2.0 {@code AtomicRateLimiter}, 1 s refresh period, no wait. */
  RESILIENCE4J {
    @Override
    Decider create(Scenario scenario) {
      RateLimiterConfig config = RateLimiterConfig.custom()
          .limitForPeriod((int) allowedOr(scenario, Integer.MAX_VALUE))
          .limitRefreshPeriod(Duration.ofSeconds(1))
          .timeoutDuration(Duration.ZERO)
          .build();
      AtomicRateLimiter limiter = new AtomicRateLimiter("bench", config);
      return limiter::acquirePermission;
    }
  },

  /** Bucket4j 8.14.0 local lock-free bucket, capacity = limit, greedy refill of the limit per 1 s. */
  BUCKET4J {
    @Override
    Decider create(Scenario scenario) {
      long limit = allowedOr(scenario, 1_000_000_000L);
      Bucket bucket = Bucket.builder()
          .addLimit(l -> l.capacity(limit).refillGreedy(limit, Duration.ofSeconds(1)))
          .withMillisecondPrecision()
          .build(); // LOCK_FREE is the local default
      return () -> bucket.tryConsume(1);
    }
  },

  /** Guava 33.4.8 {@code RateLimiter.create(limit)} (SmoothBursty), {@code tryAcquire()}. */
  GUAVA {
    @Override
    Decider create(Scenario scenario) {
      RateLimiter limiter = RateLimiter.create(allowedOr(scenario, 1_000_000_000L));
      return limiter::tryAcquire;
    }
  },

  /** A hand-written synchronized {@code ArrayDeque<Long>} sliding log. */
  NAIVE_DEQUE {
    @Override
    Decider create(Scenario scenario) {
      return new NaiveSlidingLog(allowedOr(scenario, 1_000_000L), 1000);
    }
  },

  /** {@code LongAdder.increment()}: counts, decides nothing. The ceiling, not a peer. */
  LONG_ADDER {
    @Override
    Decider create(Scenario scenario) {
      LongAdder adder = new LongAdder();
      return () -> {
        adder.increment();
        return true;
      };
    }
  };

  /** The key every thread uses. */
  static final String HOT_KEY = "hot";

  /** A decider for {@link #HOT_KEY} under {@code scenario}. */
  abstract Decider create(Scenario scenario);

  private static long allowedOr(Scenario scenario, long allowedLimit) {
    return scenario.limit(allowedLimit);
  }

  private static Decider windowpane(WindowSpec spec, long limit) {
    return windowpane(spec, limit, false);
  }

  private static Decider windowpane(WindowSpec spec, long limit, boolean topKeys) {
    Windowpane wp = Windowpane.local(); // system clock
    Quota quota = Quota.of(Limit.of(limit, spec));
    io.windowpane.RateLimiter limiter = wp.limiter("bench", topKeys ? quota.withTopKeys() : quota);
    String key = HOT_KEY;
    return new Decider() {
      @Override
      public boolean decide() {
        return limiter.tryConsume(key, 1);
      }

      @Override
      public void close() {
        wp.close();
      }
    };
  }
}
