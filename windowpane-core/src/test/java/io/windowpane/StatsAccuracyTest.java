package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

/**
 * The accuracy promise of statistics windows, against exact answers on generated data: every
 * reported quantile (1,001 of them, q = 0, 0.001, ..., 1) within the relative accuracy of the
 * true value of the same rank; count, min and max exact; sum and mean within
 * {@code 2^-50 * sum|x|} of the exact (BigDecimal) answers. Values are spread over the 60 panes
 * of a one-minute window so that every summary merges panes. Seeded: a failure reproduces.
 */
class StatsAccuracyTest {

  private static final int VALUES = 100_000;
  private static final Duration MINUTE = Duration.ofMinutes(1);

  private static DoubleSupplier distribution(String name, Random random) {
    switch (name) {
      case "uniform":
        return () -> 1000 * random.nextDouble();
      case "lognormal":
        return () -> Math.exp(3 + 2 * random.nextGaussian());
      case "pareto":
        return () -> 1 / Math.pow(1 - random.nextDouble(), 1 / 1.1); // shape 1.1: heavy tail
      case "1e-3..1e9":
        return () -> Math.pow(10, -3 + 12 * random.nextDouble());
      case "negatives":
        return () -> {
          int pick = random.nextInt(10);
          double magnitude = Math.pow(10, -3 + 12 * random.nextDouble());
          return pick == 0 ? 0.0 : pick < 6 ? -magnitude : magnitude;
        };
      default:
        throw new AssertionError(name);
    }
  }

  private static final String[] DISTRIBUTIONS = {"uniform", "lognormal", "pareto", "1e-3..1e9",
      "negatives"};

  @Test
  void histogramWindows_reportEveryQuantileWithinTheRelativeAccuracy() {
    for (double accuracy : new double[] {0.01, 0.001, 0.05}) {
      for (String name : DISTRIBUTIONS) {
        StatsSpec spec = StatsSpec.histogram(MINUTE, 60).withRelativeAccuracy(accuracy);
        check(spec, name, VALUES, new Random(name.hashCode() * 31L + (long) (accuracy * 1e6)));
      }
    }
  }

  @Test
  void exactWindows_reportEveryQuantileExactly() {
    for (String name : DISTRIBUTIONS) {
      check(StatsSpec.exact(MINUTE), name, 20_000, new Random(name.hashCode()));
    }
  }

  private static void check(StatsSpec spec, String name, int n, Random random) {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = Windowpane.localBuilder().clock(clock).build()) {
      WindowStats stats = wp.stats("accuracy", spec);
      DoubleSupplier next = distribution(name, random);
      double[] values = new double[n];
      for (int i = 0; i < n; i++) {
        if (i > 0 && i % ((n + 59) / 60) == 0) {
          clock.advance(1000); // next pane: 60 panes hold the data
        }
        values[i] = next.getAsDouble();
        stats.record("k", values[i]);
      }
      Summary s = stats.summary("k");
      String what = name + " under " + spec;
      Arrays.sort(values);
      assertThat(s.count()).as(what).isEqualTo(n);
      assertThat(s.min()).as(what).isEqualTo(values[0]);
      assertThat(s.max()).as(what).isEqualTo(values[n - 1]);
      BigDecimal exact = BigDecimal.ZERO;
      double absolute = 0;
      for (double v : values) {
        exact = exact.add(new BigDecimal(v));
        absolute += Math.abs(v);
      }
      double bound = Math.scalb(absolute, -50);
      assertThat(new BigDecimal(s.sum()).subtract(exact).abs().doubleValue()).as("sum, " + what)
          .isLessThanOrEqualTo(bound);
      BigDecimal exactMean = exact.divide(BigDecimal.valueOf(n), MathContext.DECIMAL128);
      assertThat(new BigDecimal(s.mean()).subtract(exactMean).abs().doubleValue())
          .as("mean, " + what).isLessThanOrEqualTo(bound / n + Math.ulp(s.mean()));
      double accuracy = s.relativeAccuracy();
      double worst = 0;
      for (int i = 0; i <= 1000; i++) {
        double q = i / 1000.0;
        double truth = values[(int) Math.round(q * (n - 1))];
        double reported = s.quantile(q);
        double error = truth == 0 ? Math.abs(reported) : Math.abs(reported - truth) / Math.abs(truth);
        worst = Math.max(worst, error);
        assertThat(error).as("q=%s of %s: reported %s, true %s", q, what, reported, truth)
            .isLessThanOrEqualTo(accuracy * (1 + 1e-9));
      }
      if (!spec.isExact()) {
        // the bound is not vacuous: some quantile lands well inside it, none outside
        assertThat(worst).as("worst relative error, " + what).isGreaterThan(accuracy / 10);
      }
    }
  }
}
