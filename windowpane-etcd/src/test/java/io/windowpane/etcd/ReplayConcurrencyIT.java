package io.windowpane.etcd;

import io.windowpane.ManualClock;
import io.windowpane.MillisClock;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Replays racing adds on the same keys of a real etcd ({@link ReplayLoad}): coalesced into the
 * same transactions, into panes behind the head, each id sent twice at once. Every acknowledged
 * event is counted exactly once, on the system clock and on a manual clock that moves the
 * panes on while the load runs.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
@ExtendWith(EtcdServerExtension.class)
class ReplayConcurrencyIT {

  private static final long LOAD_MILLIS = 4_000;

  private final EtcdServer etcd;

  ReplayConcurrencyIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  @Test
  void addsAndReplaysOnTheSameKeys_systemClock_countEveryAcknowledgedEventOnce()
      throws Exception {
    MillisClock clock = MillisClock.system();
    try (EtcdEngine engine = TestEngines.builder(List.of(etcd.endpoint()), clock).build()) {
      ReplayLoad load = new ReplayLoad(engine, clock);
      load.run(1, () -> sleep(LOAD_MILLIS));
      load.assertExact();
    }
  }

  @Test
  void addsAndReplaysOnTheSameKeys_manualClockMovingThePanes_countEveryAcknowledgedEventOnce()
      throws Exception {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 999); // a pane's last ms
    try (EtcdEngine engine = TestEngines.builder(List.of(etcd.endpoint()), clock).build()) {
      ReplayLoad load = new ReplayLoad(engine, clock);
      Random random = new Random(2);
      load.run(2, () -> {
        // up to 25 s in all: every event stays inside the 60 s window to the end
        for (long moved = 0, until = System.nanoTime() + LOAD_MILLIS * 1_000_000;
            System.nanoTime() < until; ) {
          long step = moved < 25_000 ? random.nextInt(13) : 0;
          clock.advance(step);
          moved += step;
          sleep(1);
        }
      });
      load.assertExact();
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
