package io.windowpane.redis;

import static io.windowpane.redis.AdaptiveFixture.P;
import static io.windowpane.redis.AdaptiveFixture.W;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.List;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adaptive histogram statistics windows on a real server under memory pressure made the real
 * way ({@link AdaptiveFixture}): the fold of panes, buckets and the aggregate, memory per key,
 * counts and quantiles, a client that declared the window without the option, one level per
 * window length each way.
 */
class AdaptiveStatsIT {

  @RegisterExtension
  static final AdaptiveFixture FIXTURE = new AdaptiveFixture();

  private final AdaptiveFixture fixture = FIXTURE;
  private final ManualClock clock = FIXTURE.clock;

  /** Half a window length on, records value and expects the key at factor k. */
  private void step(WindowStats stats, String key, double value, int k) {
    clock.advance(W / 2);
    stats.record("k", value);
    assertThat(fixture.factor(key)).as("after %s", value).isEqualTo(k);
  }

  @Test
  void statisticsUnderPressure_shrink_andKeepCountsAndQuantiles() {
    StatsSpec spec = StatsSpec.histogram(Duration.ofMillis(W), P).withAdaptive(8);
    try (Windowpane wp = fixture.windowpane(); Windowpane plainClient = fixture.windowpane()) {
      WindowStats stats = wp.stats("s", spec);
      WindowStats plain = plainClient.stats("s", spec.withoutAdaptive());
      for (int i = 0; i < P; i++) {
        for (int v = 1; v <= 20; v++) {
          stats.record("k", v * 10.0 + i);
        }
        clock.advance(W / P);
      }
      String key = ((List<?>) fixture.admin.command("KEYS", "wp1:s:{s:k:1}:h*")).stream()
          .map(String.class::cast).filter(name -> !name.endsWith(":a")).findFirst().orElseThrow();
      Summary before = stats.summary("k");
      long fine = fixture.memory(key) + fixture.memory(key + ":a");
      fixture.pressure(true);
      stats.record("k", 500.0);
      assertThat(fixture.factor(key)).isEqualTo(2);
      Summary after = stats.summary("k");
      assertThat(fixture.memory(key) + fixture.memory(key + ":a")).isLessThan(fine);
      // at t = T0 + W the fine window held panes 1..63; the coarse one holds 2..63 (pane 1
      // shared a coarse pane with pane 0, which left): one fine pane, 20 values, fewer
      assertThat(before.count()).isEqualTo(63 * 20);
      assertThat(after.count()).isEqualTo(62 * 20 + 1);
      assertThat(plain.summary("k").count()).isEqualTo(after.count());
      assertThat(after.max()).isEqualTo(500.0);
      assertThat(after.min()).isEqualTo(12.0);
      double median = after.quantile(0.5);
      assertThat(median).isCloseTo(before.quantile(0.5), Percentage.withPercentage(3));
      // one level per window length each way: half a window later no step, a window later one
      step(stats, key, 1.0, 2);
      step(stats, key, 3.0, 4);
      fixture.pressure(false);
      step(stats, key, 2.0, 4);
      step(stats, key, 5.0, 2);
      assertThat(stats.summary("k").count()).as("2.0 and 5.0, and 3.0 unless its pane left")
          .isBetween(2L, 3L).isEqualTo(plain.summary("k").count());
      clock.advance(2 * W);
      stats.record("k", 4.0);
      assertThat(fixture.factor(key)).as("an idle key reads as absent: it starts again at 1")
          .isEqualTo(1);
      assertThat(stats.summary("k").count()).isEqualTo(1);
    }
  }

}
