package io.windowpane.etcd;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.etcd.EtcdCluster;
import io.windowpane.testkit.etcd.EtcdClusterExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/** The etcd engine on a real 3-member etcd cluster, against every part of the conformance suite. */
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
