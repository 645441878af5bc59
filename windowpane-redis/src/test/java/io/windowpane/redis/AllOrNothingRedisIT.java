package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.GroupDecision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.PermitRequest;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Windowpane.tryAcquireAllOrNothing on a real redis-server (leases and releases of library
 * version 9), with the engine's time taken from a manual clock: a denied group leaves nothing
 * in Redis, the denial and its retryAfter are the denying limiter's own, and racing clients
 * leave exact totals.
 */
@ExtendWith(RedisServerExtension.class)
class AllOrNothingRedisIT {

  private static final AtomicInteger NAMES = new AtomicInteger();

  private final ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 123);
  private final Windowpane wp;
  private final String prefix = "aon" + NAMES.incrementAndGet() + "-";
  private final RateLimiter a;
  private final RateLimiter b;

  AllOrNothingRedisIT(RedisServer redis) {
    wp = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
    a = wp.limiter(prefix + "a", Limit.of(5, WindowSpec.panes(Duration.ofSeconds(1), 10)));
    b = wp.limiter(prefix + "b", Limit.of(3, WindowSpec.log(Duration.ofSeconds(1)))
        .named("b-second"));
  }

  @AfterEach
  void close() {
    wp.close();
  }

  private GroupDecision group(PermitRequest... requests) {
    return wp.tryAcquireAllOrNothing(List.of(requests)).orElseThrow();
  }

  private static long room(RateLimiter limiter, String key) {
    Decision d = limiter.peek(key, 1).orElseThrow();
    return d.allowed() ? d.remaining() + 1 : 0;
  }

  @Test
  void secondOver_firstGivenBack_exactBoundary_thenBothRecorded() throws Exception {
    GroupDecision both = group(a.request("u", 2), b.request("t", 1));
    assertThat(both.allowed()).isTrue();
    assertThat(both.decision()).isEqualTo(Decision.allowed(2));
    b.tryAcquire("t", 2);
    clock.advance(999);
    Decision alone = b.peek("t", 1).orElseThrow();
    assertThat(b.peekAsync("t", 1).toCompletableFuture().get()).contains(alone);
    GroupDecision denied = group(a.request("u", 3), b.request("t", 1));
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.deniedIndex()).hasValue(1);
    assertThat(denied.decision()).isEqualTo(alone);
    assertThat(denied.decision().retryAfterMillis()).isEqualTo(1);
    // a's first 2 were in the pane of t0, out of its 10 panes at t0 + 999: room 5, given back
    assertThat(denied.decisions().get(0)).isEqualTo(Optional.of(Decision.allowed(5)));
    assertThat(room(a, "u")).isEqualTo(5);
    clock.advance(1);
    GroupDecision at = group(a.request("u", 3), b.request("t", 1));
    assertThat(at.allowed()).isTrue();
    // 1 s after the first group, its pane and log entries have left both windows
    assertThat(room(a, "u")).isEqualTo(2);
    assertThat(room(b, "t")).isEqualTo(2);
  }

  /** 4 clients racing groups {pool, user}; "pool" sorts first, so denied groups give back. */
  @Test
  void concurrentGroups_exactTotals_onRedis() throws Exception {
    RateLimiter pool = wp.limiter(prefix + "pool", Limit.of(200,
        WindowSpec.panes(Duration.ofSeconds(10), 10)));
    RateLimiter user = wp.limiter(prefix + "user", Limit.of(15,
        WindowSpec.panes(Duration.ofSeconds(10), 10)));
    int threads = 4;
    ExecutorService workers = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> allowed = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        String key = "t" + t;
        allowed.add(workers.submit(() -> {
          go.await();
          int ok = 0;
          for (int i = 0; i < 40; i++) {
            if (wp.tryAcquireAllOrNothing(List.of(user.request(key, 1),
                pool.request("shared", 1))).orElseThrow().allowed()) {
              ok++;
            }
          }
          return ok;
        }));
      }
      go.countDown();
      for (int t = 0; t < threads; t++) {
        assertThat(allowed.get(t).get(60, TimeUnit.SECONDS)).as("client %d", t).isEqualTo(15);
        assertThat(room(user, "t" + t)).isZero();
      }
      assertThat(room(pool, "shared")).isEqualTo(200 - threads * 15);
    } finally {
      workers.shutdownNow();
    }
  }
}
