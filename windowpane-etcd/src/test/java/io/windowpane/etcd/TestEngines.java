package io.windowpane.etcd;

import io.windowpane.MillisClock;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.List;

/** Engines on the testkit's etcd fixtures whose calls carry a given clock's time. */
final class TestEngines {

  /** Manual clocks stand still while real time runs: keep keys physically while tests run. */
  static final Duration TEST_GRACE = Duration.ofMinutes(10);

  private TestEngines() {}

  static EtcdEngine.Builder builder(List<String> endpoints, MillisClock clock) {
    return EtcdEngine.builder().endpoints(endpoints.toArray(new String[0])).clock(clock)
        .expiryGrace(TEST_GRACE);
  }

  static Windowpane open(List<String> endpoints, MillisClock clock) {
    return Windowpane.using(builder(endpoints, clock).build());
  }
}
