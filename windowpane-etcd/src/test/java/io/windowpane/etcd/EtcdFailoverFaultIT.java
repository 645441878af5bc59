package io.windowpane.etcd;

import static io.windowpane.testkit.failover.FailoverLoad.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Failover;
import io.windowpane.Limit;
import io.windowpane.MillisClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.etcd.EtcdCluster;
import io.windowpane.testkit.etcd.EtcdClusterExtension;
import io.windowpane.testkit.failover.FailoverLoad;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A failover chain (etcd on a real 3-member cluster, then the local engine) under constant load
 * from 4 threads while the etcd leader is killed (SIGKILL) as etcd is the active engine. While
 * the cluster elects a new leader, calls wait at most the call timeout and are answered by the
 * local engine; none fails; etcd takes calls again by itself once it answers, after the events
 * the local engine took are replayed into it; etcd then holds every event, plus at most the
 * calls that waited past the timeout (they may have landed once the new leader committed them).
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
@ExtendWith(EtcdClusterExtension.class)
class EtcdFailoverFaultIT {

  /** etcd commits a write to a quorum's disks: on a loaded test machine 100 ms is too tight. */
  private static final long CALL_TIMEOUT_MILLIS = 300;
  private static final long SCHEDULING_ALLOWANCE_MILLIS = 400;
  private static final long LIMIT = 1_000_000;
  private static final WindowSpec MINUTE = WindowSpec.panes(Duration.ofSeconds(60), 60);

  private final EtcdCluster cluster;

  EtcdFailoverFaultIT(EtcdCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void leaderKilledWhileActive_noCallerFails_andEtcdHoldsEveryEventAfterRecovery()
      throws Exception {
    EtcdEngine etcd = TestEngines.builder(cluster.endpoints(), MillisClock.system())
        .timeout(Duration.ofSeconds(5)).build();
    Failover chain = Failover.chain(etcd, Windowpane.localBuilder().buildEngine())
        .callTimeout(Duration.ofMillis(CALL_TIMEOUT_MILLIS)).build();
    try (Windowpane wp = Windowpane.using(chain)) {
      RateLimiter limiter = wp.limiter("etcd-fault", Limit.of(LIMIT, MINUTE));
      WindowCounter counter = wp.counter("etcd-fault", MINUTE);
      FailoverLoad load = new FailoverLoad(limiter, counter, "etcd", 4, CALL_TIMEOUT_MILLIS);
      try {
        await("traffic on etcd",
            () -> chain.activeEngine().equals("etcd") && load.allowed() > 100, 20_000);
        int leader = cluster.leader().orElseThrow();
        long mark = load.mark();
        cluster.kill(leader);
        await("etcd answering again through the chain",
            () -> chain.activeEngine().equals("etcd") && load.allowedByPrimaryAfterMark() > 100,
            30_000);
        System.out.printf("etcd leader %d killed: %d decisions by local, first %s ms after the "
            + "kill; longest wait %d ms; %s%n", leader, load.allowedByLocal(),
            load.firstLocalAfterMarkNanos.get() == Long.MAX_VALUE ? "none"
                : Long.toString((load.firstLocalAfterMarkNanos.get() - mark) / 1_000_000),
            load.maxWaitNanos.get() / 1_000_000, chain.stats());
      } finally {
        load.close();
      }
      await("replay drained", () -> chain.status().get(0).pendingReplay() == 0
          && chain.activeEngine().equals("etcd"), 10_000);

      assertThat(load.errors).isEmpty();
      assertThat(load.maxWaitNanos.get() / 1_000_000)
          .isLessThanOrEqualTo(CALL_TIMEOUT_MILLIS + SCHEDULING_ALLOWANCE_MILLIS);
      for (String key : FailoverLoad.KEYS) {
        FailoverLoad.Tally t = load.tallies.get(key);
        // read etcd itself: a read through the chain slower than the call timeout would be
        // answered by the local engine, which holds only what it took
        assertThat(etcd.counterStore("etcd-fault", MINUTE).count(key)).as(key + " events")
            .isBetween(t.adds.sum(), t.adds.sum() + t.slowAdds.sum());
        assertThat(etcd.limiterStore("etcd-fault", Quota.of(Limit.of(LIMIT, MINUTE)))
            .tryAcquire(key, 1).remaining()).as(key + " remaining")
            .isBetween(LIMIT - t.allowed.sum() - t.slowAllowed.sum() - 1,
                LIMIT - t.allowed.sum() - 1);
      }
      assertThat(chain.stats().lostEvents()).isZero();
    }
  }
}
