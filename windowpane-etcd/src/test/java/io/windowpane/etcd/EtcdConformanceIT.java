package io.windowpane.etcd;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;

/** The etcd engine on a real single-member etcd, against every part of the conformance suite. */
@ExtendWith(EtcdServerExtension.class)
class EtcdConformanceIT extends EtcdConformanceSuite {

  private final EtcdServer etcd;

  EtcdConformanceIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return TestEngines.open(List.of(etcd.endpoint()), clock);
  }
}
