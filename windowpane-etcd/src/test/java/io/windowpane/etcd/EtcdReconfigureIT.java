package io.windowpane.etcd;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import io.windowpane.testkit.reconfigure.ReconfigureScenarios;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Windowpane.reconfigure on a real etcd: the reconfigured limiter keeps the keys of its first
 * permits (etcd names them by the permits), so every key keeps its counts, and a raised exact
 * log holds the new permits' worth of entries.
 */
@ExtendWith(EtcdServerExtension.class)
class EtcdReconfigureIT {

  private final EtcdServer etcd;
  private final ManualClock clock = ManualClock.at(1_700_000_000_003L);

  EtcdReconfigureIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  @Test
  void changedPermits_keepEveryKeysCounts_inEachLayout() {
    try (Windowpane wp = Windowpane.using(EtcdEngine.builder()
        .endpoints(etcd.endpoint()).clock(clock).expiryGrace(Duration.ofMinutes(10)).build())) {
      ReconfigureScenarios.changedPermits_keepEveryKeysCounts(wp, clock);
    }
  }
}
