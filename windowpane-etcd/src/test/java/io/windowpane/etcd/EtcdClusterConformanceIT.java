package io.windowpane.etcd;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.conformance.CounterConformance;
import io.windowpane.testkit.conformance.EventTimeConformance;
import io.windowpane.testkit.conformance.LimiterConformance;
import io.windowpane.testkit.etcd.EtcdCluster;
import io.windowpane.testkit.etcd.EtcdClusterExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The etcd engine on a real 3-member etcd cluster, against the parts of the conformance suite
 * whose answers three members can change: every part where concurrent writers race a
 * compare-and-swap or each step reads what the steps before it wrote (concurrency, the leases
 * with their concurrent part, statistics with theirs, locks, the randomized model's thousands of
 * steps). The counter and limiter parts check the window and decision arithmetic in a few steps
 * a case, which the number of members does not change: {@link EtcdConformanceIT} runs them,
 * and the event-time part too: an event-time write goes through the same compare-and-swap
 * transaction on the key's lane as every other write (EtcdCounterStore.addAtAsync), which the
 * concurrency and randomized parts race here; what it adds is the arithmetic of lateness.
 */
@ExtendWith(EtcdClusterExtension.class)
class EtcdClusterConformanceIT extends EtcdConformanceSuite {

  private final EtcdCluster cluster;

  EtcdClusterConformanceIT(EtcdCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return TestEngines.open(cluster.endpoints(), clock);
  }

  @Override
  protected boolean runs(Class<? extends ConformanceBase> part) {
    return part != CounterConformance.class && part != LimiterConformance.class
        && part != EventTimeConformance.class;
  }

  /**
   * 100 operations per thread a phase (200 on one member): 8 threads x 100 (about 1,200 permits
   * asked a phase) reach the limiter test's 5,000 a second by its fifth phase, so its later
   * phases decide at the limit under contention; the quota test is at its limit in every phase,
   * and every phase checks exact totals (all that was asked allowed while there is room).
   */
  @Override
  protected int concurrencyOperationsPerPhase() {
    return 100;
  }

  /**
   * Seeds 1 to 4 of the 12 that EtcdConformanceIT runs on one member: the engine's logic is the
   * same, and what three members could add (a stale read, a lost compare-and-swap) would show in
   * any seed, since every step reads what the steps before it wrote.
   */
  @Override
  protected int randomizedModelSeeds() {
    return 4;
  }
}
