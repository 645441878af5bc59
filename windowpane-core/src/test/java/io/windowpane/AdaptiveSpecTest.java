package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class AdaptiveSpecTest {

  private static final Duration MINUTE = Duration.ofMinutes(1);

  @Test
  void withAdaptive_keepsTheShapeAndCarriesTheMinimum() {
    WindowSpec spec = WindowSpec.panes(MINUTE, 60).withTopKeys(8).withAdaptive(15);
    assertThat(spec.adaptiveMinPanes()).hasValue(15);
    assertThat(spec.panes()).isEqualTo(60);
    assertThat(spec.topKeys()).isEqualTo(8);
    assertThat(spec.withBuffering(Buffering.of(Duration.ofMillis(100))).adaptiveMinPanes()).hasValue(15);
    assertThat(spec).hasToString("SLIDING_PANES(1m / 60 panes, top keys 8, adaptive to 15 panes)");
    assertThat(spec).isNotEqualTo(WindowSpec.panes(MINUTE, 60).withTopKeys(8));
    assertThat(spec.withoutAdaptive()).isEqualTo(WindowSpec.panes(MINUTE, 60).withTopKeys(8));
    assertThat(spec.withoutAdaptive().adaptiveMinPanes()).isEqualTo(OptionalInt.empty());
    assertThat(WindowSpec.panes(MINUTE, 60).withAdaptive(60).adaptiveMinPanes()).hasValue(60);
    assertThat(WindowSpec.panes(MINUTE, 1).withAdaptive(1).adaptiveMinPanes()).hasValue(1);
    assertThat(WindowSpec.panes(Duration.ofMillis(64_000), 64).withAdaptive(1).adaptiveMinPanes()).hasValue(1);
  }

  @Test
  void withAdaptive_refusesAMinimumNotReachedByHalving() {
    WindowSpec spec = WindowSpec.panes(MINUTE, 60);
    assertThatThrownBy(() -> spec.withAdaptive(20)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minPanes must be 60 halved zero or more times (one of 60, 30, 15), was 20");
    assertThatThrownBy(() -> spec.withAdaptive(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minPanes must be in [1, 60], was 0");
    assertThatThrownBy(() -> spec.withAdaptive(61)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("minPanes must be in [1, 60], was 61");
    assertThatThrownBy(() -> WindowSpec.panes(MINUTE, 12).withAdaptive(1))
        .hasMessageContaining("one of 12, 6, 3");
  }

  @Test
  void withAdaptive_refusesOtherAlgorithms() {
    assertThatThrownBy(() -> WindowSpec.log(MINUTE).withAdaptive(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("adaptive applies to SLIDING_PANES windows only; this is SLIDING_LOG");
    assertThatThrownBy(() -> WindowSpec.weighted(MINUTE).withAdaptive(1))
        .hasMessageContaining("this is SLIDING_WEIGHTED");
    assertThatThrownBy(() -> StatsSpec.exact(MINUTE).withAdaptive(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("histogram windows only");
  }

  @Test
  void statsWithAdaptive_keepsTheBucketsAndIsPartOfEquality() {
    StatsSpec plain = StatsSpec.histogram(MINUTE, 12).withRelativeAccuracy(0.02);
    StatsSpec adaptive = plain.withAdaptive(3);
    assertThat(adaptive.window().adaptiveMinPanes()).hasValue(3);
    assertThat(adaptive.buckets()).isEqualTo(plain.buckets());
    assertThat(adaptive.withRelativeAccuracy(0.01).window().adaptiveMinPanes()).hasValue(3);
    assertThat(adaptive).isNotEqualTo(plain);
    assertThat(adaptive.withoutAdaptive()).isEqualTo(plain);
    assertThat(adaptive.toString()).endsWith(" adaptive to 3 panes");
    assertThatThrownBy(() -> plain.withAdaptive(5)).hasMessageContaining("one of 12, 6, 3");
  }

  @Test
  void theLocalEngine_keepsTheDeclaredResolution() {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = Windowpane.localBuilder().clock(clock).build()) {
      WindowCounter adaptive = wp.counter("a", WindowSpec.panes(MINUTE, 60).withAdaptive(15));
      WindowCounter plain = wp.counter("p", WindowSpec.panes(MINUTE, 60));
      for (int i = 0; i < 120; i++) {
        assertThat(adaptive.add("k", 1)).isEqualTo(plain.add("k", 1));
        clock.advance(700);
      }
    }
  }

  @Test
  void aLimitOptsInWithAnAdaptiveWindow() {
    Limit limit = Limit.of(100, WindowSpec.panes(MINUTE, 60).withAdaptive(15));
    assertThat(limit.window().adaptiveMinPanes()).hasValue(15);
    assertThat(Quota.of(limit).limits().get(0).window().adaptiveMinPanes()).hasValue(15);
  }
}
