package io.windowpane.etcd;

import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import io.windowpane.testkit.leasing.LeasingScenarios;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hot-key leasing on a real etcd (docs/leasing.md): several leasing nodes in one JVM under
 * threads, a node killed by PID while it holds a slice, and two JVMs sharing one limit, every
 * total exact.
 */
@ExtendWith(EtcdServerExtension.class)
class EtcdLeasingIT {

  private final EtcdServer etcd;

  EtcdLeasingIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  @Test
  void threeNodes_admitExactlyTheRoom() throws Exception {
    LeasingScenarios.manyNodes_admitExactlyTheRoom(
        clock -> TestEngines.open(List.of(etcd.endpoint()), clock));
  }

  @Test
  void killedNode_itsSliceIsNeverSpentTwice() throws Exception {
    LeasingScenarios.killedNode_itsSliceIsNeverSpentTwice(LeasingNodeMain.class,
        etcd.endpoint(), clock -> TestEngines.open(List.of(etcd.endpoint()), clock));
  }

  @Test
  void twoJvms_shareOneLimit() throws Exception {
    LeasingScenarios.twoJvms_shareOneLimit(LeasingNodeMain.class, etcd.endpoint(),
        clock -> TestEngines.open(List.of(etcd.endpoint()), clock));
  }
}
