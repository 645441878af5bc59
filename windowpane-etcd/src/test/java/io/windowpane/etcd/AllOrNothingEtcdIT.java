package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.GroupDecision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Windowpane.tryAcquireAllOrNothing on a real etcd (its leases and releases), manual clock: a
 * denied group leaves nothing, the denial is the denying limiter's own and exact, and racing
 * clients leave exact totals. etcd cannot peek, so counts are read by a later acquire.
 */
@ExtendWith(EtcdServerExtension.class)
class AllOrNothingEtcdIT {

  private final ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 123);
  private final Windowpane wp;
  private final String prefix = "aon-" + UUID.randomUUID().toString().substring(0, 8) + "-";

  AllOrNothingEtcdIT(EtcdServer etcd) {
    wp = TestEngines.open(List.of(etcd.endpoint()), clock);
  }

  @AfterEach
  void close() {
    wp.close();
  }

  @Test
  void secondOver_firstGivenBack_exactBoundary() {
    RateLimiter a = wp.limiter(prefix + "a", Limit.of(5,
        WindowSpec.panes(Duration.ofSeconds(1), 10)));
    RateLimiter b = wp.limiter(prefix + "b", Limit.of(3, WindowSpec.log(Duration.ofSeconds(1))));
    b.tryAcquire("t", 3);
    clock.advance(999);
    GroupDecision denied = wp.tryAcquireAllOrNothing(List.of(a.request("u", 4),
        b.request("t", 1))).orElseThrow();
    assertThat(denied.allowed()).isFalse();
    assertThat(denied.deniedIndex()).hasValue(1);
    assertThat(denied.decision().retryAfterMillis()).isEqualTo(1);
    clock.advance(1);
    GroupDecision allowed = wp.tryAcquireAllOrNothing(List.of(a.request("u", 4),
        b.request("t", 1))).orElseThrow();
    assertThat(allowed.allowed()).isTrue();
    // a kept nothing of the denied group: its 4 are the allowed group's
    assertThat(a.tryAcquire("u", 1)).isEqualTo(Decision.allowed(0));
    assertThat(b.tryAcquire("t", 2)).isEqualTo(Decision.allowed(0));
  }

  /** 2 clients racing groups {pool, user}: "pool" sorts first, so denied groups give back. */
  @Test
  void concurrentGroups_exactTotals_onEtcd() throws Exception {
    RateLimiter pool = wp.limiter(prefix + "pool", Limit.of(100,
        WindowSpec.panes(Duration.ofSeconds(10), 10)));
    RateLimiter user = wp.limiter(prefix + "user", Limit.of(5,
        WindowSpec.panes(Duration.ofSeconds(10), 10)));
    ExecutorService workers = Executors.newFixedThreadPool(2);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> allowed = new ArrayList<>();
    try {
      for (int t = 0; t < 2; t++) {
        String key = "t" + t;
        allowed.add(workers.submit(() -> {
          go.await();
          int ok = 0;
          for (int i = 0; i < 10; i++) {
            if (wp.tryAcquireAllOrNothing(List.of(user.request(key, 1),
                pool.request("shared", 1))).orElseThrow().allowed()) {
              ok++;
            }
          }
          return ok;
        }));
      }
      go.countDown();
      for (Future<Integer> f : allowed) {
        assertThat(f.get(120, TimeUnit.SECONDS)).isEqualTo(5);
      }
      assertThat(pool.tryAcquire("shared", 1)).isEqualTo(Decision.allowed(100 - 10 - 1));
    } finally {
      workers.shutdownNow();
    }
  }
}
