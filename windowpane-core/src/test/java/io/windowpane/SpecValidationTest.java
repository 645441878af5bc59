package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Collections;
import org.junit.jupiter.api.Test;

class SpecValidationTest {

  private static final Duration SECOND = Duration.ofSeconds(1);

  @Test
  void windowSpec_refusesNonPositiveAbsurdAndFractionalLengths() {
    assertThatThrownBy(() -> WindowSpec.panes(Duration.ZERO, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length must be in [1 ms");
    assertThatThrownBy(() -> WindowSpec.log(Duration.ofMillis(-5)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WindowSpec.weighted(Duration.ofDays(367)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("366 days");
    assertThatThrownBy(() -> WindowSpec.log(Duration.ofNanos(1_500_000)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole milliseconds");
    assertThatThrownBy(() -> WindowSpec.log(null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length must not be null");
  }

  @Test
  void windowSpec_panesMustDivideTheWindowAndStayInRange() {
    assertThatThrownBy(() -> WindowSpec.panes(SECOND, 7))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("panes must divide");
    assertThatThrownBy(() -> WindowSpec.panes(SECOND, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("panes must be in [1, 4096]");
    assertThatThrownBy(() -> WindowSpec.panes(Duration.ofSeconds(10), 5000))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WindowSpec.of(SECOND, 10, Algorithm.SLIDING_LOG))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("panes must be in [1, 1]");
    assertThat(WindowSpec.of(SECOND, 10, Algorithm.SLIDING_PANES)).isEqualTo(WindowSpec.panes(SECOND, 10));
  }

  @Test
  void windowSpec_resolutionAndExpiryFollowTheAlgorithm() {
    assertThat(WindowSpec.panes(SECOND, 10).resolutionMillis()).isEqualTo(100);
    assertThat(WindowSpec.panes(SECOND, 10).expiryMillis()).isEqualTo(1100);
    assertThat(WindowSpec.log(SECOND).expiryMillis()).isEqualTo(1001);
    assertThat(WindowSpec.weighted(SECOND).expiryMillis()).isEqualTo(2000);
    assertThat(WindowSpec.panes(Duration.ofMinutes(1), 60)).hasToString("SLIDING_PANES(1m / 60 panes)");
  }

  @Test
  void limit_refusesPermitsOutOfRange() {
    WindowSpec spec = WindowSpec.panes(SECOND, 10);
    assertThatThrownBy(() -> Limit.of(0, spec))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits must be in [1, 1099511627775], was 0");
    assertThatThrownBy(() -> Limit.of(1L << 40, spec)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Limit.of((1 << 20) + 1, WindowSpec.log(SECOND)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[1, 1048576]");
    assertThatThrownBy(() -> Limit.of(5, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Limit.of(5, spec).named("bad name"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Limit.of(10, spec).name()).isEqualTo("10/1s");
    assertThat(Limit.of(10, spec).named("burst").name()).isEqualTo("burst");
  }

  @Test
  void quota_refusesNoLimitsTooManyAndResolutionsTooFarApart() {
    Limit perSecond = Limit.of(10, WindowSpec.panes(SECOND, 10));
    assertThatThrownBy(() -> Quota.of(Collections.emptyList()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("number of limits must be in [1, 8]");
    assertThatThrownBy(() -> Quota.of(Collections.nCopies(9, perSecond)))
        .isInstanceOf(IllegalArgumentException.class);
    Limit fine = Limit.of(10, WindowSpec.panes(Duration.ofMillis(10), 10)); // 1 ms panes
    Limit yearly = Limit.of(10, WindowSpec.panes(Duration.ofDays(365), 365));
    assertThatThrownBy(() -> Quota.of(fine, yearly))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("coarser panes");
    Quota quota = Quota.of(perSecond, Limit.of(3, WindowSpec.log(Duration.ofMinutes(1))));
    assertThat(quota.smallestPermits()).isEqualTo(3);
    assertThat(quota.expiryMillis()).isEqualTo(60_001);
  }

  @Test
  void windowpane_sameNameSameShapeIsTheSameObject_otherShapeIsRefused() {
    try (Windowpane wp = Windowpane.local()) {
      WindowSpec spec = WindowSpec.panes(SECOND, 10);
      assertThat(wp.counter("c", spec)).isSameAs(wp.counter("c", spec));
      assertThatThrownBy(() -> wp.counter("c", WindowSpec.log(SECOND)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already names");
      Quota quota = Quota.of(Limit.of(1, spec));
      assertThat(wp.limiter("c", quota)).isSameAs(wp.limiter("c", quota));
      assertThatThrownBy(() -> wp.limiter("c", Quota.of(Limit.of(2, spec))))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> wp.counter("has space", spec))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name must be");
      assertThatThrownBy(() -> Windowpane.localBuilder().maxKeys(0))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxKeys");
    }
  }
}
