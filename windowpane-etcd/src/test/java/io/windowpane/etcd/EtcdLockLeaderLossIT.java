package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Backoff;
import io.windowpane.DistributedLock;
import io.windowpane.LockLease;
import io.windowpane.LockOptions;
import io.windowpane.Windowpane;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Locks through the loss of an etcd leader (SIGKILL) on a real 3-member cluster, in real time:
 * two engines keep taking and releasing one lock, one holds another lock with its watchdog.
 * Fencing tokens keep increasing in the order the lock was held, nobody holds it twice at once,
 * no call fails (timeout 15 s; the election takes one to two seconds), and the held lock is
 * neither lost nor taken by the other engine.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
@ExtendWith(EtcdClusterExtension.class)
class EtcdLockLeaderLossIT {

  private static final int THREADS = 4;
  private static final int AFTER_KILL = 40;

  private final EtcdCluster cluster;

  EtcdLockLeaderLossIT(EtcdCluster cluster) {
    this.cluster = cluster;
  }

  private Windowpane client() {
    EtcdEngine engine = EtcdEngine.builder().endpoints(cluster.endpoints().toArray(new String[0]))
        .timeout(Duration.ofSeconds(15)).build();
    engine.probe().toCompletableFuture().join(); // connected before any lease is timed
    return Windowpane.using(engine);
  }

  @Test
  void leaderKilled_tokensKeepIncreasing_noOverlap_theHeldLockSurvives() throws Exception {
    LockOptions options = LockOptions.defaults()
        .withBackoff(Backoff.exponential(Duration.ofMillis(2), Duration.ofMillis(50)));
    List<Long> tokens = new ArrayList<>(); // appended inside the critical section only
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    long[] lastSection = {System.nanoTime()};
    long[] longestGapNanos = {0}; // between sections: the election shows here
    AtomicBoolean stop = new AtomicBoolean();
    AtomicBoolean killed = new AtomicBoolean();
    CountDownLatch warmedUp = new CountDownLatch(40);
    CountDownLatch servedAfterKill = new CountDownLatch(AFTER_KILL);
    int tokensBeforeKill;
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (Windowpane a = client(); Windowpane b = client()) {
      LockLease held = a.lock("survivor", options).tryLock().orElseThrow();
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        DistributedLock churn = (t % 2 == 0 ? a : b).lock("churn", options);
        workers.add(pool.submit(() -> {
          while (!stop.get()) {
            try (LockLease lease = churn.tryLock(Duration.ofSeconds(60)).orElseThrow()) {
              if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
              }
              synchronized (tokens) {
                tokens.add(lease.fencingToken());
                long now = System.nanoTime();
                longestGapNanos[0] = Math.max(longestGapNanos[0], now - lastSection[0]);
                lastSection[0] = now;
              }
              inside.decrementAndGet();
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
      int leader = cluster.leader().orElseThrow();
      synchronized (tokens) {
        tokensBeforeKill = tokens.size();
      }
      cluster.kill(leader);
      killed.set(true);
      servedAfterKill.await(90, TimeUnit.SECONDS);
      stop.set(true);
      for (Future<?> w : workers) {
        w.get(60, TimeUnit.SECONDS); // rethrows a failed call
      }
      assertThat(servedAfterKill.getCount()).as("sections after the kill").isZero();
      assertThat(cluster.leader()).as("a new leader").isPresent().get().isNotEqualTo(leader);
      assertThat(held.isHeld()).as("renewed through the election").isTrue();
      assertThat(held.lost().toCompletableFuture()).isNotDone();
      assertThat(b.lock("survivor", options).tryLock()).as("still a's").isEmpty();
      assertThat(held.release()).isTrue();
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
    assertThat(overlaps.get()).as("two holders at once").isZero();
    for (int i = 1; i < tokens.size(); i++) {
      assertThat(tokens.get(i)).as("token %d of %d (%d before the kill)", i, tokens.size(),
          tokensBeforeKill).isGreaterThan(tokens.get(i - 1));
    }
    System.out.println("locks through leader loss: " + tokensBeforeKill + " sections before the"
        + " kill, " + (tokens.size() - tokensBeforeKill) + " after; tokens " + tokens.get(0)
        + " .. " + tokens.get(tokens.size() - 1) + "; longest pause between sections "
        + TimeUnit.NANOSECONDS.toMillis(longestGapNanos[0]) + " ms");
  }
}
