package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.conformance.Together;
import io.windowpane.testkit.fault.FaultProxy;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Coalescing (on by default): concurrent single calls of one store bound for one node travel
 * as batch calls, each caller gets exactly its own answer, exact totals hold, a lone call goes
 * out alone, and a failed batch fails each call in it.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
@ExtendWith(RedisServerExtension.class)
class CoalescingIT {

  private static final int THREADS = 8;

  private final RedisServer redis;

  CoalescingIT(RedisServer redis) {
    this.redis = redis;
  }

  private Windowpane engine(ManualClock clock, boolean coalescing) {
    return Windowpane.using(RedisEngine.builder().uri(redis.uri()).clock(clock)
        .expiryGrace(TestEngines.TEST_GRACE).coalescing(coalescing).build());
  }

  @Test
  void concurrentCalls_travelTogether_eachGetsItsOwnAnswer_exactTotals() throws Exception {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 31);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (Windowpane wp = engine(clock, true); RespClient admin = redis.client()) {
      RateLimiter limiter = wp.limiter("co-l", Limit.of(3_000,
          WindowSpec.panes(Duration.ofSeconds(10), 10)));
      WindowCounter counter = wp.counter("co-c", WindowSpec.log(Duration.ofSeconds(10)));
      long before = GroupEquivalenceIT.fcalls(admin);
      AtomicLong wrong = new AtomicLong();
      long allowed = Together.sum(pool, THREADS, Duration.ofMinutes(2), () -> {
        long mine = 0;
        String own = "own:" + Thread.currentThread().getId();
        for (int i = 1; i <= 500; i++) {
          if (limiter.tryConsume("hot", 1)) {
            mine++;
          }
          if (counter.add(own, 1) != i) { // its own key: its own count, exactly
            wrong.incrementAndGet();
          }
        }
        return mine;
      });
      long calls = GroupEquivalenceIT.fcalls(admin) - before;
      assertThat(allowed).isEqualTo(3_000);
      assertThat(wrong.get()).as("answers that were not the caller's own").isZero();
      assertThat(calls).as("server calls for %d single calls", 2 * THREADS * 500)
          .isLessThan(2L * THREADS * 500);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aLoneCall_goesOutAlone_andCoalescingOff_sendsEveryCall() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 32);
    for (boolean coalescing : List.of(true, false)) {
      try (Windowpane wp = engine(clock, coalescing); RespClient admin = redis.client()) {
        WindowCounter counter = wp.counter("lone-" + coalescing,
            WindowSpec.panes(Duration.ofSeconds(1), 10));
        long before = GroupEquivalenceIT.fcalls(admin);
        for (int i = 1; i <= 20; i++) {
          assertThat(counter.add("k", 1)).isEqualTo(i);
        }
        assertThat(GroupEquivalenceIT.fcalls(admin) - before).isEqualTo(20);
      }
    }
  }

  @Test
  void aFailedBatch_failsEachCallInIt() throws Exception {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 33);
    try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port());
        Windowpane wp = Windowpane.using(RedisEngine.builder()
            .uri("redis://" + proxy.host() + ":" + proxy.port()).clock(clock)
            .expiryGrace(TestEngines.TEST_GRACE).timeout(Duration.ofSeconds(1)).build())) {
      RateLimiter limiter = wp.limiter("co-fail", Limit.of(100,
          WindowSpec.panes(Duration.ofSeconds(10), 10)));
      proxy.latency(Duration.ofMillis(300));
      List<CompletableFuture<?>> calls = new ArrayList<>();
      for (int i = 0; i < 10; i++) { // the first alone, the other 9 queued behind it
        calls.add(limiter.tryAcquireAsync("k" + (i % 3), 1).toCompletableFuture());
      }
      TimeUnit.MILLISECONDS.sleep(100);
      proxy.blackHole(); // the lone call times out, then the batch sent after it
      for (CompletableFuture<?> call : calls) {
        assertThat(call).failsWithin(Duration.ofSeconds(15))
            .withThrowableOfType(ExecutionException.class)
            .withCauseInstanceOf(WindowpaneException.class);
      }
      proxy.pass();
    }
  }
}
