package io.windowpane.bench.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The benchmarks' lock mode ({@link LockModeEngine}) on a real redis-server answers as the local
 * engine does (the reference semantics), so the benchmark compares the functions with a design
 * that decides the same things: seeded random steps on every algorithm and a two-limit quota,
 * and threads contending for one key's lock allowing exactly the limit.
 */
@ExtendWith(RedisServerExtension.class)
class LockModeEngineIT {

  private static final Duration SECOND = Duration.ofSeconds(1);
  private static final long START = 1_700_000_000_123L;

  private final RedisServer redis;

  LockModeEngineIT(RedisServer redis) {
    this.redis = redis;
  }

  private Windowpane lockMode(ManualClock clock) {
    return Windowpane.using(new LockModeEngine(redis.uri(), Duration.ofSeconds(30), clock,
        600_000));
  }

  @Test
  void randomSteps_answerAsTheLocalEngine_onEveryAlgorithm() {
    List<Quota> quotas = List.of(
        Quota.of(Limit.of(7, WindowSpec.panes(SECOND, 10))),
        Quota.of(Limit.of(7, WindowSpec.log(SECOND))),
        Quota.of(Limit.of(7, WindowSpec.weighted(SECOND))),
        Quota.of(Limit.of(4, WindowSpec.panes(Duration.ofMillis(200), 4)),
            Limit.of(9, WindowSpec.log(SECOND))));
    ManualClock clock = ManualClock.at(START);
    try (Windowpane tested = lockMode(clock);
        Windowpane reference = Windowpane.localBuilder().clock(clock).build()) {
      for (int q = 0; q < quotas.size(); q++) {
        Quota quota = quotas.get(q);
        RateLimiter limiter = tested.limiter("lm" + q, quota);
        RateLimiter model = reference.limiter("lm" + q, quota);
        WindowSpec spec = quota.limits().get(0).window();
        WindowCounter counter = tested.counter("lc" + q, spec);
        WindowCounter modelCounter = reference.counter("lc" + q, spec);
        Random random = new Random(31 + q);
        for (int step = 0; step < 150; step++) {
          String key = "k" + random.nextInt(2);
          long permits = 1 + random.nextInt(3);
          Decision expected = model.tryAcquire(key, permits);
          assertThat(limiter.tryAcquire(key, permits)).as("%s step %d", quota, step)
              .isEqualTo(expected);
          assertThat(counter.add(key, permits)).as("%s step %d", spec, step)
              .isEqualTo(modelCounter.add(key, permits));
          clock.advance(Duration.ofMillis(random.nextInt(90)));
        }
      }
    }
  }

  @Test
  void namesAndKeysThatRunIntoOneAnother_doNotShareState() {
    ManualClock clock = ManualClock.at(START);
    try (Windowpane wp = lockMode(clock)) {
      Quota one = Quota.of(Limit.of(1, WindowSpec.panes(SECOND, 10)));
      RateLimiter a = wp.limiter("a", one);
      RateLimiter ab = wp.limiter("a:b", one);
      assertThat(a.tryAcquire("b:c").allowed()).isTrue();
      assertThat(ab.tryAcquire("c").allowed()).as("limiter a:b, key c").isTrue();
      assertThat(a.tryAcquire("b:c").allowed()).isFalse();
    }
  }

  @Test
  void threadsOnOneKey_allowExactlyTheLimit() throws Exception {
    int threads = 4;
    int callsPerThread = 40;
    long limit = 100;
    ManualClock clock = ManualClock.at(START);
    try (Windowpane wp = lockMode(clock)) {
      RateLimiter limiter = wp.limiter("hot", Quota.of(Limit.of(limit, WindowSpec.log(SECOND))));
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<Integer>> allowed = new ArrayList<>();
        Callable<Integer> calls = () -> {
          int n = 0;
          for (int i = 0; i < callsPerThread; i++) {
            n += limiter.tryConsume("k", 1) ? 1 : 0;
          }
          return n;
        };
        for (int t = 0; t < threads; t++) {
          allowed.add(pool.submit(calls));
        }
        long total = 0;
        for (Future<Integer> f : allowed) {
          total += f.get();
        }
        assertThat(total).isEqualTo(limit);
        assertThat(limiter.tryAcquire("k", 1).allowed()).isFalse();
      } finally {
        pool.shutdownNow();
      }
    }
  }
}
