package io.windowpane.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The configuration's durations: the short form, Spring's ISO-8601 form, and their errors. */
class DurationsTest {

  @Test
  void shortAndIsoForms_denoteTheSameDurations() {
    assertThat(Durations.parse("10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(Durations.parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
    assertThat(Durations.parse("pt1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(Durations.parse("P1D")).isEqualTo(Duration.ofDays(1));
    assertThat(Durations.parse("PT0.25S")).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void isoForm_negativeOrFinerThanAMillisecond_orMalformed_isRefused() {
    assertThatThrownBy(() -> Durations.parse("PT-1S")).hasMessage(
        "must be a duration of whole milliseconds, not negative, was PT-1S");
    assertThatThrownBy(() -> Durations.parse("PT0.0005S")).hasMessage(
        "must be a duration of whole milliseconds, not negative, was PT0.0005S");
    assertThatThrownBy(() -> Durations.parse("PTX")).hasMessageContaining(
        "or ISO-8601 such as PT10S; was 'PTX'");
  }

  @Test
  void bareNumber_suggestsOnlyValidForms() {
    assertThatThrownBy(() -> Durations.parse("10")).hasMessage("must be a duration with a unit,"
        + " e.g. 10s or 10ms: add a unit (ms, s, m, h or d) to 10");
    assertThatThrownBy(() -> Durations.parse("0")).hasMessage("must be a duration with a unit,"
        + " e.g. 10s or 500ms: add a unit (ms, s, m, h or d) to 0");
    assertThatThrownBy(() -> Durations.parse("-3")).hasMessage("must be a duration with a unit,"
        + " e.g. 10s or 500ms: add a unit (ms, s, m, h or d) to -3");
  }
}
