package io.windowpane.testkit.reconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.List;

/**
 * {@link Windowpane#reconfigure} scenarios every remote engine runs on its real backend, beside
 * what each one adds about where its state lives.
 */
public final class ReconfigureScenarios {

  private ReconfigureScenarios() {}

  /** A quota of one limit. */
  public static Quota quota(long permits, WindowSpec window) {
    return Quota.of(Limit.of(permits, window));
  }

  /**
   * On a pane, a log and a weighted window of 1 s (limiter names {@code reconf-<algorithm>}, so
   * {@code wp} must be fresh): 6 of 10 permits taken, lowered to 5 (the next request denied by
   * the limit of 5), raised to 20 (14 more allowed one a millisecond, a log entry each, the
   * last with nothing remaining, then denied), and 20 allowed once the window has passed.
   */
  public static void changedPermits_keepEveryKeysCounts(Windowpane wp, ManualClock clock) {
    List<WindowSpec> windows = List.of(WindowSpec.panes(Duration.ofSeconds(1), 10),
        WindowSpec.log(Duration.ofSeconds(1)), WindowSpec.weighted(Duration.ofSeconds(1)));
    for (WindowSpec w : windows) {
      String name = "reconf-" + w.algorithm();
      RateLimiter limiter = wp.limiter(name, quota(10, w));
      assertThat(limiter.tryAcquire("k", 6).allowed()).isTrue();
      wp.reconfigure(name, quota(5, w));
      Decision denied = limiter.tryAcquire("k");
      assertThat(denied.allowed()).as("%s", w).isFalse();
      assertThat(denied.deniedBy().orElseThrow().permits()).isEqualTo(5);
      wp.reconfigure(name, quota(20, w));
      Decision last = null;
      for (int i = 0; i < 14; i++) {
        last = limiter.tryAcquire("k");
        assertThat(last.allowed()).as("%s, %d", w, i).isTrue();
        clock.advance(1);
      }
      assertThat(last.remaining()).as("%s: 6 + 14 of 20", w).isZero();
      assertThat(limiter.tryAcquire("k").allowed()).as("%s: 6 + 14 of 20", w).isFalse();
      clock.advance(denied.retryAfterMillis() + 2_000);
      assertThat(limiter.tryAcquire("k", 20).allowed()).as("%s: windows later", w).isTrue();
    }
  }
}
