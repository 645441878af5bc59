package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.etcd.EtcdCluster;
import io.windowpane.testkit.etcd.EtcdClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Stops the leader of a real 3-member cluster (SIGKILL) while two processes (engines) add and
 * acquire on a few keys, and checks that totals stay exact: every add that returned is counted
 * once, none that failed is, and the limiter allowed exactly its limit. Calls ride out the
 * election within their timeout; none may fail.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
@ExtendWith(EtcdClusterExtension.class)
class LeaderLossIT {

  private static final int THREADS = 8;
  private static final long LIMIT = 3_000;
  private static final int AFTER_KILL = 1_500;

  private final EtcdCluster cluster;

  LeaderLossIT(EtcdCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void leaderKilledMidRun_totalsStayExactAndNoCallFails() throws Exception {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 1);
    List<Windowpane> processes = new ArrayList<>();
    List<EtcdEngine> engines = new ArrayList<>();
    List<WindowCounter> counters = new ArrayList<>();
    List<RateLimiter> limiters = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      EtcdEngine engine = TestEngines.builder(cluster.endpoints(), clock)
          .timeout(Duration.ofSeconds(15)).build();
      engines.add(engine);
      Windowpane wp = Windowpane.using(engine);
      processes.add(wp);
      counters.add(wp.counter("leader-loss", WindowSpec.log(Duration.ofMinutes(5))));
      limiters.add(wp.limiter("leader-loss", Limit.of(LIMIT, WindowSpec.panes(
          Duration.ofMinutes(5), 10))));
    }
    AtomicLong added = new AtomicLong();
    AtomicLong attempted = new AtomicLong();
    AtomicLong allowed = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch warmedUp = new CountDownLatch(THREADS * 50);
    CountDownLatch servedAfterKill = new CountDownLatch(AFTER_KILL);
    AtomicBoolean killed = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    List<Future<?>> workers = new ArrayList<>();
    int leader = cluster.leader().orElseThrow();
    long killedAtOps;
    try {
      for (int t = 0; t < THREADS; t++) {
        int me = t;
        workers.add(pool.submit(() -> {
          WindowCounter counter = counters.get(me % 2);
          RateLimiter limiter = limiters.get(me % 2);
          for (int i = 0; !stop.get(); i++) {
            String key = "k" + (i % 3);
            long n = 1 + i % 2;
            counter.add(key, n);
            added.addAndGet(n);
            attempted.incrementAndGet();
            if (limiter.tryConsume("hot", 1)) {
              allowed.incrementAndGet();
            }
            warmedUp.countDown();
            if (killed.get()) {
              servedAfterKill.countDown();
            }
          }
          return null;
        }));
      }
      assertThat(warmedUp.await(60, TimeUnit.SECONDS)).as("workers started").isTrue();
      killedAtOps = attempted.get();
      cluster.kill(leader);
      killed.set(true);
      // run on until the survivors have served AFTER_KILL more iterations (or a worker failed)
      servedAfterKill.await(90, TimeUnit.SECONDS);
      stop.set(true);
      for (Future<?> w : workers) {
        w.get(60, TimeUnit.SECONDS); // rethrows a failed call (a dead worker ends the wait early)
      }
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertThat(servedAfterKill.getCount()).as("iterations served after the kill").isZero();
    assertThat(cluster.leader()).as("a new leader").isPresent().get().isNotEqualTo(leader);
    long counted = 0;
    for (String key : List.of("k0", "k1", "k2")) {
      counted += counters.get(0).count(key);
    }
    assertThat(counted).as("every returned add counted exactly once").isEqualTo(added.get());
    assertThat(allowed.get()).as("exactly the limit, never more")
        .isEqualTo(Math.min(LIMIT, attempted.get()));
    System.out.println("leader " + leader + " killed after " + killedAtOps + " of "
        + attempted.get() + " iterations; " + engines.get(0).metrics() + ", "
        + engines.get(1).metrics());
    processes.forEach(Windowpane::close);
  }
}
