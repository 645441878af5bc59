package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.time.Duration;
import java.util.List;
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

  private static Quota quota(long permits, WindowSpec window) {
    return Quota.of(Limit.of(permits, window));
  }

  @Test
  void changedPermits_keepEveryKeysCounts_inEachLayout() {
    List<WindowSpec> windows = List.of(WindowSpec.panes(Duration.ofSeconds(1), 10),
        WindowSpec.log(Duration.ofSeconds(1)), WindowSpec.weighted(Duration.ofSeconds(1)));
    try (Windowpane wp = Windowpane.using(EtcdEngine.builder()
        .endpoints(etcd.endpoint()).clock(clock).expiryGrace(Duration.ofMinutes(10)).build())) {
      for (WindowSpec w : windows) {
        String name = "reconf-" + w.algorithm();
        RateLimiter limiter = wp.limiter(name, quota(10, w));
        assertThat(limiter.tryAcquire("k", 6).allowed()).isTrue();
        wp.reconfigure(name, quota(5, w));
        Decision denied = limiter.tryAcquire("k");
        assertThat(denied.allowed()).as("%s", w).isFalse();
        assertThat(denied.deniedBy().orElseThrow().permits()).isEqualTo(5);
        wp.reconfigure(name, quota(20, w));
        for (int i = 0; i < 14; i++) { // one a millisecond: a log entry each
          assertThat(limiter.tryAcquire("k").allowed()).as("%s, %d", w, i).isTrue();
          clock.advance(1);
        }
        assertThat(limiter.tryAcquire("k").allowed()).as("%s: 6 + 14 of 20", w).isFalse();
        clock.advance(denied.retryAfterMillis() + 2_000);
        assertThat(limiter.tryAcquire("k", 20).allowed()).as("%s: windows later", w).isTrue();
      }
    }
  }
}
