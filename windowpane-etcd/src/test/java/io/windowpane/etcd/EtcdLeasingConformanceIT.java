package io.windowpane.etcd;

import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConcurrencyConformance;
import io.windowpane.testkit.conformance.LimiterConformance;
import io.windowpane.testkit.conformance.RandomizedModelConformance;
import io.windowpane.testkit.leasing.LeasingScenarios;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The limiter parts of the conformance suite with hot-key leasing on every limiter (a real
 * single-member etcd): the same assertions, no tolerance (docs/leasing.md says why).
 * The counter tests that share those classes run again here, unchanged.
 */
@ExtendWith(EtcdServerExtension.class)
class EtcdLeasingConformanceIT {

  private final EtcdServer etcd;

  EtcdLeasingConformanceIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  private Windowpane open(ManualClock clock) {
    return TestEngines.open(java.util.List.of(etcd.endpoint()), clock);
  }

  @Nested
  class Limiters extends LimiterConformance {
    @Override
    protected Quota underTest(Quota quota, ManualClock clock) {
      return LeasingScenarios.leasing(quota, clock);
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class RandomizedModel extends RandomizedModelConformance {
    @Override
    protected Quota underTest(Quota quota, ManualClock clock) {
      return LeasingScenarios.leasing(quota, clock);
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class Concurrency extends ConcurrencyConformance {
    @Override
    protected int operationsPerPhase() {
      return 300; // as EtcdConformanceSuite
    }

    @Override
    protected Quota underTest(Quota quota, ManualClock clock) {
      return LeasingScenarios.leasing(quota, clock);
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }
}
