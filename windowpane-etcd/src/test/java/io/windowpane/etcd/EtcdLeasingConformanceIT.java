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
