package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The README's statistics example, line for line, does what the README says. */
class ReadmeStatisticsExampleTest {

  @Test
  void theFiveLinesOfTheReadme() {
    try (Windowpane wp = Windowpane.local()) {
      WindowStats payments = wp.stats("payments", StatsSpec.histogram(Duration.ofMinutes(10), 60));
      payments.record("card:4242", 129.90);
      Summary s = payments.summary("card:4242");
      double total = s.sum(), average = s.mean(), largest = s.max();
      double p99 = s.quantile(0.99);                      // within 1% of the true p99

      assertThat(total).isEqualTo(129.90);
      assertThat(average).isEqualTo(129.90);
      assertThat(largest).isEqualTo(129.90);
      assertThat(p99).isEqualTo(129.90); // one value: the max, exactly
    }
  }
}
