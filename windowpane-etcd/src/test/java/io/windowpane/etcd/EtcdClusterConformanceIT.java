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
}
