package io.windowpane.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.CapacityExceededException;
import io.windowpane.ManualClock;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Conformance of statistics windows, histogram and exact: what a summary reports (count, min and
 * max exact; the sum to the stated precision; quantiles within the relative accuracy, or exact),
 * window edges, expiry, batch and async forms, the exact window's bound, concurrency and bad
 * input. Every answer is checked against {@link StatsModel}.
 */
public abstract class StatsConformance extends ConformanceBase {

  private static final Duration SECOND = Duration.ofSeconds(1);

  private static List<StatsSpec> bothKinds() {
    return List.of(StatsSpec.histogram(SECOND, 10), StatsSpec.exact(SECOND));
  }

  private WindowStats stats(ManualClock clock, StatsSpec spec) {
    return engine(clock).stats(uniqueName("stats"), spec);
  }

  /** Values of every sign and of magnitudes 1e-3 to 1e9, zero included. */
  static double[] mixedValues(Random random, int n) {
    double[] out = new double[n];
    for (int i = 0; i < n; i++) {
      switch (random.nextInt(5)) {
        case 0:
          out[i] = Math.exp(random.nextGaussian() * 2 + 3); // lognormal latencies
          break;
        case 1:
          out[i] = -Math.pow(10, -3 + 12 * random.nextDouble()); // negatives, 1e-3..1e9
          break;
        case 2:
          out[i] = Math.pow(10, -3 + 12 * random.nextDouble());
          break;
        case 3:
          out[i] = random.nextInt(3) == 0 ? 0.0 : random.nextInt(1000);
          break;
        default:
          out[i] = 10 / Math.pow(random.nextDouble() + 1e-9, 1 / 1.5); // Pareto tail
          break;
      }
    }
    return out;
  }

  @Test
  void summary_ofAKeyNeverSeen_isEmpty() {
    for (StatsSpec spec : bothKinds()) {
      ManualClock clock = ManualClock.at(REALISTIC);
      WindowStats stats = stats(clock, spec);
      StatsModel.check(stats.summary("nobody"), new double[0], spec, spec + " never seen");
      assertThat(stats.holdsState("nobody")).isFalse();
    }
  }

  @Test
  void summary_reportsCountSumMeanMinMaxAndQuantiles() {
    for (long t0 : startInstants()) {
      for (StatsSpec spec : bothKinds()) {
        ManualClock clock = ManualClock.at(Math.floorDiv(t0, 1000) * 1000 + 10);
        WindowStats stats = stats(clock, spec);
        StatsModel model = new StatsModel(spec);
        stats.record("k", 3.5);
        model.record(clock.millis(), 3.5);
        stats.record("k", -2.25);
        model.record(clock.millis(), -2.25);
        clock.advance(7);
        stats.recordAll("k", 0.0, -0.0, 1e9, 0.001, -7e-3, 42);
        model.record(clock.millis(), 0.0, -0.0, 1e9, 0.001, -7e-3, 42);
        model.check(stats.summary("k"), clock.millis(), spec + " from " + t0);
        Summary s = stats.summary("k");
        assertThat(s.count()).isEqualTo(8);
        assertThat(s.min()).isEqualTo(-2.25);
        assertThat(s.max()).isEqualTo(1e9);
        assertThat(stats.summary("other").isEmpty()).isTrue();
      }
    }
  }

  @Test
  void quantiles_ofTwoThousandMixedValues_areWithinTheStatedAccuracy() {
    Random random = new Random(20261121);
    for (StatsSpec spec : List.of(StatsSpec.histogram(SECOND, 10),
        StatsSpec.histogram(SECOND, 10).withRelativeAccuracy(0.002), StatsSpec.exact(SECOND))) {
      ManualClock clock = ManualClock.at(REALISTIC + 5);
      WindowStats stats = stats(clock, spec);
      StatsModel model = new StatsModel(spec);
      for (int batch = 0; batch < 4; batch++) {
        clock.advance(batch == 0 ? 0 : 100);
        double[] values = mixedValues(random, 500);
        stats.recordAll("k", values);
        model.record(clock.millis(), values);
      }
      model.check(stats.summary("k"), clock.millis(), spec.toString());
    }
  }

  @Test
  void sum_keepsSmallValuesRecordedBesideHugeOnes() {
    for (StatsSpec spec : bothKinds()) {
      ManualClock clock = ManualClock.at(REALISTIC + 3);
      WindowStats stats = stats(clock, spec);
      double[] ones = new double[1000];
      Arrays.fill(ones, 1.0);
      stats.record("k", 1e16);
      stats.recordAll("k", ones); // a naive double sum loses every one of them: 1e16 + 1 == 1e16
      stats.record("k", -1e16);
      Summary s = stats.summary("k");
      assertThat(s.sum()).as("sum of %s", spec).isEqualTo(1000.0);
      assertThat(s.mean()).isEqualTo(1000.0 / 1002);
    }
  }

  @Test
  void histogram_valueLeavesExactlyWhenItsPaneLeaves() {
    for (long t0 : startInstants()) {
      long edge = Math.floorDiv(t0, 100) * 100; // a pane edge of 100 ms panes
      StatsSpec spec = StatsSpec.histogram(SECOND, 10);
      ManualClock clock = ManualClock.at(edge + 37);
      WindowStats stats = stats(clock, spec);
      stats.record("k", 5);
      clock.set(edge + 150);
      stats.record("k", 7);
      clock.set(edge + 999);
      assertThat(stats.summary("k").count()).as("from %d", t0).isEqualTo(2);
      clock.set(edge + 1000); // the first pane left: the value at +37 is gone, 63 ms early
      Summary s = stats.summary("k");
      assertThat(s.count()).as("from %d", t0).isEqualTo(1);
      assertThat(s.min()).isEqualTo(7);
      assertThat(s.quantile(0.5)).isEqualTo(7);
      clock.set(edge + 1099);
      assertThat(stats.summary("k").count()).isEqualTo(1);
      clock.set(edge + 1100);
      assertThat(stats.summary("k").isEmpty()).as("from %d", t0).isTrue();
    }
  }

  @Test
  void exact_keepsTheValuesOfTheHalfOpenWindow() {
    for (long t0 : startInstants()) {
      StatsSpec spec = StatsSpec.exact(SECOND);
      ManualClock clock = ManualClock.at(t0);
      WindowStats stats = stats(clock, spec);
      stats.recordAll("k", 1, 2, 3);
      clock.advance(400);
      stats.recordAll("k", 10, 20);
      clock.set(t0 + 999);
      assertThat(stats.summary("k").count()).as("from %d", t0).isEqualTo(5);
      clock.set(t0 + 1000);
      Summary s = stats.summary("k");
      assertThat(s.count()).as("from %d", t0).isEqualTo(2);
      assertThat(s.sum()).isEqualTo(30);
      assertThat(s.quantile(0)).isEqualTo(10);
      clock.set(t0 + 1399);
      assertThat(stats.summary("k").count()).isEqualTo(2);
      clock.set(t0 + 1400);
      assertThat(stats.summary("k").isEmpty()).as("from %d", t0).isTrue();
    }
  }

  @Test
  void state_disappearsWithinWindowPlusResolutionOfTheLastValue() {
    for (long t0 : startInstants()) {
      for (StatsSpec spec : bothKinds()) {
        ManualClock clock = ManualClock.at(t0);
        WindowStats stats = stats(clock, spec);
        stats.record("k", 1.5);
        assertThat(stats.holdsState("k")).isTrue();
        clock.advance(spec.expiryMillis() - 1);
        assertThat(stats.summary("k").isEmpty()).as("%s from %d", spec, t0).isTrue();
        clock.advance(1);
        assertThat(stats.holdsState("k")).as("%s from %d", spec, t0).isFalse();
        stats.record("k", 2.5); // starts afresh
        Summary s = stats.summary("k");
        assertThat(s.count()).isEqualTo(1);
        assertThat(s.sum()).isEqualTo(2.5);
      }
    }
  }

  @Test
  void batchAndAsyncForms_answerLikeTheSingleForms() throws Exception {
    for (StatsSpec spec : bothKinds()) {
      ManualClock clock = ManualClock.at(REALISTIC + 77);
      WindowStats stats = stats(clock, spec);
      stats.recordAsync("a", 4).toCompletableFuture().get(10, TimeUnit.SECONDS);
      stats.recordAllAsync("b", 1, 2, 3).toCompletableFuture().get(10, TimeUnit.SECONDS);
      stats.recordAll("c", 9);
      List<Summary> all = stats.summaryAll(List.of("b", "a", "nobody", "c"));
      assertThat(all).extracting(Summary::count).containsExactly(3L, 1L, 0L, 1L);
      assertThat(all).extracting(Summary::sum).containsExactly(6.0, 4.0, 0.0, 9.0);
      List<Summary> async = stats.summaryAllAsync(List.of("c", "b")).toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      assertThat(async).extracting(Summary::max).containsExactly(9.0, 3.0);
      Summary one = stats.summaryAsync("b").toCompletableFuture().get(10, TimeUnit.SECONDS);
      StatsModel.check(one, new double[] {1, 2, 3}, spec, "async " + spec);
      assertThat(stats.summaryAll(List.of())).isEmpty();
    }
  }

  @Test
  void badInput_isRefusedBeforeAnythingIsRecorded() {
    for (StatsSpec spec : bothKinds()) {
      ManualClock clock = ManualClock.at(REALISTIC);
      WindowStats stats = stats(clock, spec);
      stats.record("k", 1);
      for (double bad : new double[] {Double.NaN, Double.POSITIVE_INFINITY,
          Double.NEGATIVE_INFINITY}) {
        assertThatThrownBy(() -> stats.record("k", bad))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("value must be a finite number");
        assertThatThrownBy(() -> stats.recordAll("k", 5, 6, bad))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("values[2]");
        assertThatThrownBy(() -> stats.recordAsync("k", bad))
            .isInstanceOf(IllegalArgumentException.class);
      }
      assertThatThrownBy(() -> stats.recordAll("k")).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("values must hold 1 to 10000 values, was 0");
      assertThatThrownBy(() -> stats.recordAll("k", (double[]) null))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> stats.recordAll("k", new double[10_001]))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("10001");
      assertThatThrownBy(() -> stats.record("", 1)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("key must be 1 to 256 characters");
      assertThatThrownBy(() -> stats.record("x".repeat(257), 1))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> stats.summary(null)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> stats.summaryAll(Arrays.asList("a", null)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keys[1]");
      Summary s = stats.summary("k");
      for (double q : new double[] {-0.01, 1.01, Double.NaN}) {
        assertThatThrownBy(() -> s.quantile(q)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("q must be in [0, 1]");
      }
      StatsModel.check(stats.summary("k"), new double[] {1}, spec, "after bad input " + spec);
    }
  }

  @Test
  void exact_pastItsBound_refusesTheWholeRecordAndKeepsWhatItHeld() {
    StatsSpec spec = StatsSpec.exact(SECOND).withMaxValues(5);
    ManualClock clock = ManualClock.at(REALISTIC + 1);
    WindowStats stats = stats(clock, spec);
    stats.recordAll("k", 1, 2, 3);
    assertThatThrownBy(() -> stats.recordAll("k", 4, 5, 6))
        .isInstanceOf(CapacityExceededException.class).hasMessageContaining("5");
    StatsModel.check(stats.summary("k"), new double[] {1, 2, 3}, spec, "after refusal");
    stats.recordAll("k", 4, 5);
    assertThatThrownBy(() -> stats.record("k", 6)).isInstanceOf(CapacityExceededException.class);
    clock.advance(1000); // the first values left: room again
    stats.record("k", 6);
    StatsModel.check(stats.summary("k"), new double[] {6}, spec, "after the window moved");
  }

  @Test
  void manyThreadsOneKey_loseAndDoubleNothing() throws Exception {
    int threads = 8;
    int perThread = 250;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (StatsSpec spec : bothKinds()) {
        ManualClock clock = ManualClock.at(REALISTIC + 50);
        WindowStats stats = stats(clock, spec);
        StatsModel model = new StatsModel(spec);
        for (int phase = 0; phase < 2; phase++) {
          int p = phase;
          List<Double> recorded = Collections.synchronizedList(new ArrayList<>());
          Together.sum(pool, threads, Duration.ofSeconds(120), () -> {
            long me = Thread.currentThread().getId();
            for (int i = 0; i < perThread; i++) {
              double v = (me % 1000) * 1000 + i + p * 0.5 - 100; // distinct, both signs
              stats.record("hot", v);
              recorded.add(v);
            }
            return 0L;
          });
          for (double v : recorded) {
            model.record(clock.millis(), v);
          }
          model.check(stats.summary("hot"), clock.millis(), spec + " phase " + phase);
          clock.advance(150); // into the next pane
        }
        assertThat(stats.summary("hot").count()).isEqualTo(2L * threads * perThread);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void randomizedSteps_matchTheExactModel() {
    for (long t0 : startInstants()) {
      Random random = new Random(t0 ^ 0x5EED);
      for (StatsSpec spec : List.of(StatsSpec.histogram(SECOND, 5),
          StatsSpec.histogram(Duration.ofMillis(300), 3).withRelativeAccuracy(0.05),
          StatsSpec.exact(Duration.ofMillis(700)))) {
        ManualClock clock = ManualClock.at(t0);
        WindowStats stats = stats(clock, spec);
        StatsModel model = new StatsModel(spec);
        for (int step = 0; step < 120; step++) {
          clock.advance(random.nextInt(4) == 0 ? random.nextInt(1500) : random.nextInt(120));
          if (random.nextBoolean()) {
            double[] values = mixedValues(random, 1 + random.nextInt(6));
            stats.recordAll("k", values);
            model.record(clock.millis(), values);
          } else {
            model.check(stats.summary("k"), clock.millis(),
                spec + " step " + step + " from " + t0);
          }
        }
      }
    }
  }
}
