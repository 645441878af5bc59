package io.windowpane.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The exact answer a statistics window must approximate: every (time, value) recorded, and the
 * window's rule for which of them a summary at {@code t} sees (panes of a histogram window,
 * {@code (t - W, t]} for an exact one). {@link #check} compares a summary with it: count, min and
 * max exactly, the sum within {@code 2^-50 * sum|x|}, and quantiles within the relative accuracy
 * (exactly for an exact window) of the true value of the same rank.
 */
public final class StatsModel {

  /** Quantiles every check looks at. */
  public static final double[] QUANTILES = {0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99,
      0.999, 1};

  private final StatsSpec spec;
  private final List<long[]> times = new ArrayList<>();
  private final List<Double> values = new ArrayList<>();

  public StatsModel(StatsSpec spec) {
    this.spec = spec;
  }

  /** Notes values recorded at {@code now}. */
  public void record(long now, double... recorded) {
    for (double v : recorded) {
      times.add(new long[] {now});
      values.add(v);
    }
  }

  /** The values a summary at {@code now} must see, ascending. */
  public double[] visible(long now) {
    double[] out = new double[values.size()];
    int n = 0;
    long w = spec.window().windowMillis();
    long r = spec.window().resolutionMillis();
    for (int i = 0; i < values.size(); i++) {
      long t = times.get(i)[0];
      boolean in = spec.isExact() ? now - t < w
          : Math.floorDiv(t, r) > Math.floorDiv(now, r) - spec.window().panes();
      if (in) {
        out[n++] = values.get(i);
      }
    }
    double[] sorted = Arrays.copyOf(out, n);
    Arrays.sort(sorted);
    return sorted;
  }

  /** Asserts {@code summary} is a correct summary at {@code now}. */
  public void check(Summary summary, long now, String what) {
    check(summary, visible(now), spec, what);
  }

  /** Asserts {@code summary} summarizes exactly {@code sorted} (ascending) under {@code spec}. */
  public static void check(Summary summary, double[] sorted, StatsSpec spec, String what) {
    int n = sorted.length;
    assertThat(summary.count()).as("count of %s", what).isEqualTo(n);
    assertThat(summary.isExact()).as("exactness of %s", what).isEqualTo(spec.isExact());
    if (n == 0) {
      assertThat(summary.isEmpty()).as(what).isTrue();
      assertThat(summary.sum()).as("sum of %s", what).isZero();
      assertThat(summary.mean()).as("mean of %s", what).isNaN();
      assertThat(summary.min()).as("min of %s", what).isNaN();
      assertThat(summary.max()).as("max of %s", what).isNaN();
      assertThat(summary.quantile(0.5)).as("median of %s", what).isNaN();
      return;
    }
    assertThat(summary.min()).as("min of %s", what).isEqualTo(sorted[0]);
    assertThat(summary.max()).as("max of %s", what).isEqualTo(sorted[n - 1]);
    BigDecimal exact = BigDecimal.ZERO;
    double absolute = 0;
    for (double v : sorted) {
      exact = exact.add(new BigDecimal(v));
      absolute += Math.abs(v);
    }
    double bound = Math.scalb(absolute, -50);
    assertThat(new BigDecimal(summary.sum()).subtract(exact).abs().doubleValue())
        .as("error of the sum %s of %s (exact %s)", summary.sum(), what, exact)
        .isLessThanOrEqualTo(bound);
    assertThat(summary.mean()).as("mean of %s", what).isEqualTo(summary.sum() / n);
    double accuracy = spec.isExact() ? 0 : spec.buckets().relativeAccuracy();
    for (double q : QUANTILES) {
      double truth = sorted[(int) Math.round(q * (n - 1))];
      double reported = summary.quantile(q);
      if (spec.isExact()) {
        assertThat(reported).as("q%s of %s", q, what).isEqualTo(truth);
      } else {
        assertThat(Math.abs(reported - truth))
            .as("q%s of %s: reported %s, true %s", q, what, reported, truth)
            .isLessThanOrEqualTo(accuracy * Math.abs(truth) * (1 + 1e-9));
      }
    }
  }
}
