package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisClusterExtension;
import io.windowpane.testkit.redis.RedisClusterNode;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * All-or-nothing groups on a real 3-primary Redis Cluster, with racing clients and exact totals:
 * groups whose keys share one slot (hash tags) are one call of wp_group; groups whose keys span
 * slots take the ordered leases. Either way no group is ever admitted in part.
 */
@ExtendWith(RedisClusterExtension.class)
class AllOrNothingClusterIT {

  private static final int THREADS = 4;
  private static final int PER_USER = 15;
  private static final int POOL = 200;

  private final RedisCluster cluster;

  AllOrNothingClusterIT(RedisCluster cluster) {
    this.cluster = cluster;
  }

  private static long room(RateLimiter limiter, String key) {
    Decision d = limiter.peek(key, 1).orElseThrow();
    return d.allowed() ? d.remaining() + 1 : 0;
  }

  private long fcalls() {
    long sum = 0;
    for (RedisClusterNode node : cluster.nodes()) {
      try (RespClient c = node.client()) {
        sum += GroupEquivalenceIT.fcalls(c);
      }
    }
    return sum;
  }

  /**
   * "pool" and "pool:acme" share the hash tag {pool:acme:} for the keys "acme:}..." and "}...":
   * the keys of both limiters lie in one slot, so each group is one call.
   */
  @Test
  void sharedHashTag_oneCallPerGroup_exactTotals() throws Exception {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 123);
    try (Windowpane wp = TestEngines.cluster(cluster, clock)) {
      RateLimiter pool = wp.limiter("pool", Limit.of(POOL,
          WindowSpec.panes(Duration.ofSeconds(10), 10)));
      RateLimiter user = wp.limiter("pool:acme", Limit.of(PER_USER,
          WindowSpec.log(Duration.ofSeconds(10))));
      long before = fcalls();
      assertThat(wp.tryAcquireAllOrNothing(List.of(user.request("}probe", 1),
          pool.request("acme:}probe", 1))).orElseThrow().allowed()).isTrue();
      assertThat(fcalls() - before).as("FCALLs for one group").isEqualTo(1);
      race(wp, t -> List.of(user.request("}:t" + t, 1), pool.request("acme:}shared", 1)));
      for (int t = 0; t < THREADS; t++) {
        assertThat(room(user, "}:t" + t)).isZero();
      }
      assertThat(room(pool, "acme:}shared")).isEqualTo(POOL - THREADS * PER_USER);
    }
  }

  /** Keys of two limiters in different slots: the ordered leases, exact all the same. */
  @Test
  void differentHashTags_orderedLeases_exactTotals() throws Exception {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 123);
    try (Windowpane wp = TestEngines.cluster(cluster, clock)) {
      RateLimiter pool = wp.limiter("cpool", Limit.of(POOL,
          WindowSpec.panes(Duration.ofSeconds(10), 10)));
      RateLimiter user = wp.limiter("cuser", Limit.of(PER_USER,
          WindowSpec.panes(Duration.ofSeconds(10), 10)));
      race(wp, t -> List.of(user.request("t" + t, 1), pool.request("shared", 1)));
      for (int t = 0; t < THREADS; t++) {
        assertThat(room(user, "t" + t)).isZero();
      }
      assertThat(room(pool, "shared")).isEqualTo(POOL - THREADS * PER_USER);
    }
  }

  /** {@value #THREADS} clients, 40 groups each: every client gets exactly its user's limit. */
  private static void race(Windowpane wp, IntFunction<List<io.windowpane.PermitRequest>> group)
      throws Exception {
    ExecutorService workers = Executors.newFixedThreadPool(THREADS);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> allowed = new ArrayList<>();
    try {
      for (int t = 0; t < THREADS; t++) {
        List<io.windowpane.PermitRequest> requests = group.apply(t);
        allowed.add(workers.submit(() -> {
          go.await();
          int ok = 0;
          for (int i = 0; i < 40; i++) {
            if (wp.tryAcquireAllOrNothing(requests).orElseThrow().allowed()) {
              ok++;
            }
          }
          return ok;
        }));
      }
      go.countDown();
      for (int t = 0; t < THREADS; t++) {
        assertThat(allowed.get(t).get(60, TimeUnit.SECONDS)).as("client %d", t)
            .isEqualTo(PER_USER);
      }
    } finally {
      workers.shutdownNow();
    }
  }
}
