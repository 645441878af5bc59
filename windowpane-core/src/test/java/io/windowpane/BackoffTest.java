package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

  private static final double ALMOST_ONE = Math.nextDown(1.0);

  @Test
  void exponential_doublesFromInitialUpToMax_withFullJitterFromZeroToTheBase() {
    Backoff b = Backoff.exponential(Duration.ofMillis(10), Duration.ofSeconds(1));
    long[] bases = {10, 20, 40, 80, 160, 320, 640, 1000, 1000};
    for (int retry = 0; retry < bases.length; retry++) {
      assertThat(b.delayMillis(retry, 0)).as("retry %d", retry).isZero();
      assertThat(b.delayMillis(retry, ALMOST_ONE)).as("retry %d", retry).isEqualTo(bases[retry]);
      assertThat(b.withoutJitter().delayMillis(retry, 0.3)).isEqualTo(bases[retry]);
    }
    assertThat(b.delayMillis(5, 0.5)).isEqualTo(160);
  }

  @Test
  void exponential_hugeRetryNumbers_stayAtMaxWithoutOverflow() {
    Backoff b = Backoff.exponential(Duration.ofMillis(3), Duration.ofHours(1)).withoutJitter();
    for (int retry : new int[] {21, 30, 61, 62, 63, 64, 1000, Integer.MAX_VALUE}) {
      assertThat(b.delayMillis(retry, 0.5)).as("retry %d", retry).isEqualTo(3_600_000);
    }
    assertThat(b.delayMillis(20, 0.5)).isEqualTo(3L << 20);
  }

  @Test
  void fixed_hasNoJitterByDefault_andAFractionSpreadsItSymmetrically() {
    Backoff b = Backoff.fixed(Duration.ofMillis(100));
    assertThat(b.delayMillis(0, 0)).isEqualTo(100);
    assertThat(b.delayMillis(7, ALMOST_ONE)).isEqualTo(100);
    Backoff spread = b.withJitter(0.2);
    assertThat(spread.delayMillis(0, 0)).isEqualTo(80);
    assertThat(spread.delayMillis(0, 0.5)).isEqualTo(100);
    assertThat(spread.delayMillis(3, ALMOST_ONE)).isEqualTo(120);
    assertThat(b.withJitter(1).delayMillis(0, 0)).isZero();
    assertThat(b.withFullJitter().delayMillis(0, ALMOST_ONE)).isEqualTo(100);
  }

  @Test
  void delayMillis_refusesNegativeRetriesAndUniformOutsideZeroToOne() {
    Backoff b = Backoff.defaults();
    assertThatThrownBy(() -> b.delayMillis(-1, 0.5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retry must be in [0, 2147483647], was -1");
    assertThatThrownBy(() -> b.delayMillis(0, 1.0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uniform must be in [0, 1)");
    assertThatThrownBy(() -> b.delayMillis(0, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void valuesAreEqualByContent_andSayWhatTheyAre() {
    assertThat(Backoff.defaults()).isEqualTo(
        Backoff.exponential(Duration.ofMillis(10), Duration.ofSeconds(1)).withFullJitter());
    assertThat(Backoff.defaults()).isNotEqualTo(Backoff.defaults().withoutJitter());
    assertThat(Backoff.defaults()).hasToString("exponential(10ms to 1s, full jitter)");
    assertThat(Backoff.fixed(Duration.ofMillis(50)).withJitter(0.25))
        .hasToString("fixed(50ms, jitter ±25.0%)");
    assertThat(LockOptions.defaults())
        .hasToString("LockOptions[ttl 10s, watchdog on, exponential(10ms to 1s, full jitter)]");
    assertThat(LockOptions.defaults().renewIntervalMillis()).isEqualTo(3_333);
    assertThat(LockOptions.defaults().withoutWatchdog().withWatchdog())
        .isEqualTo(LockOptions.defaults());
  }
}
