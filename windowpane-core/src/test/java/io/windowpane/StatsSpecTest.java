package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class StatsSpecTest {

  private static final Duration MINUTE = Duration.ofMinutes(1);

  @Test
  void histogram_defaultsToOnePercentOverTheDefaultRange() {
    StatsSpec spec = StatsSpec.histogram(MINUTE, 12);
    assertThat(spec.isExact()).isFalse();
    assertThat(spec.window()).isEqualTo(WindowSpec.panes(MINUTE, 12));
    assertThat(spec.buckets()).isEqualTo(LogBuckets.defaults());
    assertThat(spec.expiryMillis()).isEqualTo(65_000);
    assertThat(spec.withRelativeAccuracy(0.005).buckets().relativeAccuracy()).isEqualTo(0.005);
    assertThat(spec.withTrackedRange(1e-3, 1e9).buckets().maxMagnitude()).isEqualTo(1e9);
    assertThat(spec.withRelativeAccuracy(0.01)).isEqualTo(spec).hasSameHashCodeAs(spec);
    assertThat(spec.toString()).isEqualTo("histogram(1m / 12 panes, 1.0% over [1.0E-9, 1.0E15])");
  }

  @Test
  void exact_isALogWindowWithABound() {
    StatsSpec spec = StatsSpec.exact(Duration.ofSeconds(10));
    assertThat(spec.isExact()).isTrue();
    assertThat(spec.window().algorithm()).isEqualTo(Algorithm.SLIDING_LOG);
    assertThat(spec.maxValues()).isEqualTo(100_000);
    assertThat(spec.withMaxValues(5).maxValues()).isEqualTo(5);
    assertThat(spec.expiryMillis()).isEqualTo(10_001);
    assertThat(spec).isNotEqualTo(spec.withMaxValues(5));
  }

  @Test
  void badArguments_nameTheArgumentAndItsRange() {
    assertThatThrownBy(() -> StatsSpec.histogram(MINUTE, 7))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("panes must divide");
    assertThatThrownBy(() -> StatsSpec.histogram(Duration.ZERO, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length must be in");
    assertThatThrownBy(() -> StatsSpec.exact(MINUTE).withMaxValues(0))
        .hasMessageContaining("maxValues must be in [1, 1000000], was 0");
    assertThatThrownBy(() -> StatsSpec.exact(MINUTE).withRelativeAccuracy(0.01))
        .hasMessageContaining("relativeAccuracy applies to histogram windows only");
    assertThatThrownBy(() -> StatsSpec.histogram(MINUTE, 6).withMaxValues(10))
        .hasMessageContaining("maxValues applies to exact windows only");
    assertThatThrownBy(() -> StatsSpec.histogram(MINUTE, 6).withRelativeAccuracy(0.5))
        .hasMessageContaining("relativeAccuracy must be in [0.001, 0.2], was 0.5");
  }

  @Test
  void oneNameNamesOneShape() {
    try (Windowpane wp = Windowpane.local()) {
      WindowStats a = wp.stats("s", StatsSpec.histogram(MINUTE, 6));
      assertThat(wp.stats("s", StatsSpec.histogram(MINUTE, 6))).isSameAs(a);
      assertThatThrownBy(() -> wp.stats("s", StatsSpec.exact(MINUTE)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("already names a statistics window");
      assertThat(wp.counter("s", WindowSpec.log(MINUTE))).isNotNull(); // kinds are separate
    }
  }
}
