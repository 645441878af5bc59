package io.windowpane.etcd;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.LeasingConformance;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The limiter parts of the conformance suite with hot-key leasing on every limiter
 * ({@link LeasingConformance}) on a real single-member etcd.
 */
@ExtendWith(EtcdServerExtension.class)
class EtcdLeasingConformanceIT extends LeasingConformance {

  private final EtcdServer etcd;

  EtcdLeasingConformanceIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  /**
   * Half the whole suite's 300 on etcd: 8 threads x 150 operations a phase still reach the
   * concurrency part's limits by its third phase (see EtcdClusterConformanceIT), so 10 of its 12
   * phases decide at the limit, through leases, under contention.
   */
  @Override
  protected int concurrencyOperationsPerPhase() {
    return 150;
  }

  /**
   * Seeds 1 to 4 of the 12 that EtcdConformanceIT runs without leasing: leasing changes the
   * client's side only, and a slice spent twice or never returned would show in any seed, since
   * every step reads what the steps before it wrote.
   */
  @Override
  protected int randomizedModelSeeds() {
    return 4;
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return TestEngines.open(List.of(etcd.endpoint()), clock);
  }
}
