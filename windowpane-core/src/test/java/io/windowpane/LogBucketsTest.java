package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LogBucketsTest {

  @Test
  void everyTrackedMagnitude_isReportedWithinTheRelativeAccuracy() {
    for (double accuracy : new double[] {0.001, 0.01, 0.05, 0.2}) {
      LogBuckets buckets = LogBuckets.of(accuracy, 1e-9, 1e15);
      Random random = new Random(7);
      for (int i = 0; i < 200_000; i++) {
        double v = Math.pow(10, -9 + 24 * random.nextDouble()) * (random.nextBoolean() ? 1 : -1);
        double reported = buckets.value(buckets.key(v));
        assertThat(Math.abs(reported - v)).as("%s at %s", v, accuracy)
            .isLessThanOrEqualTo(accuracy * Math.abs(v) * (1 + 1e-12));
      }
    }
  }

  @Test
  void bucketEdges_stayWithinTheRelativeAccuracy() {
    LogBuckets buckets = LogBuckets.defaults();
    double gamma = (1 + 0.01) / (1 - 0.01);
    for (int i = -1000; i <= 1700; i++) {
      double edge = Math.pow(gamma, i);
      for (double v : new double[] {Math.nextDown(edge), edge, Math.nextUp(edge)}) {
        if (v < 1e-9 || v > 1e15) {
          continue;
        }
        double reported = buckets.value(buckets.key(v));
        assertThat(Math.abs(reported - v) / v).as("edge %s", v).isLessThanOrEqualTo(0.01 * (1 + 1e-12));
      }
    }
  }

  @Test
  void keys_areOrderedLikeTheValues() {
    LogBuckets buckets = LogBuckets.defaults();
    Random random = new Random(11);
    double[] values = new double[50_000];
    for (int i = 0; i < values.length; i++) {
      values[i] = (random.nextInt(10) == 0 ? 0 : Math.pow(10, -12 + 30 * random.nextDouble()))
          * (random.nextBoolean() ? 1 : -1);
    }
    Arrays.sort(values);
    for (int i = 1; i < values.length; i++) {
      assertThat(buckets.key(values[i])).isGreaterThanOrEqualTo(buckets.key(values[i - 1]));
    }
  }

  @Test
  void zero_hasItsOwnExactBucket() {
    LogBuckets buckets = LogBuckets.defaults();
    assertThat(buckets.key(0.0)).isZero();
    assertThat(buckets.key(-0.0)).isZero();
    assertThat(buckets.value(0)).isZero();
    assertThat(buckets.key(Double.MIN_VALUE)).isEqualTo(1);
    assertThat(buckets.key(-Double.MIN_VALUE)).isEqualTo(-1);
  }

  @Test
  void magnitudesOutsideTheRange_collapseIntoTheEdgeBuckets() {
    LogBuckets buckets = LogBuckets.defaults();
    assertThat(buckets.maxKey()).isEqualTo(2764); // 5,529 buckets with zero
    assertThat(buckets.key(1e-12)).isEqualTo(buckets.key(1e-9)).isEqualTo(1);
    assertThat(buckets.key(1e20)).isEqualTo(buckets.key(Double.MAX_VALUE))
        .isEqualTo(buckets.maxKey());
    assertThat(buckets.key(-1e20)).isEqualTo(-buckets.maxKey());
    assertThat(buckets.value(1)).isCloseTo(1e-9, org.assertj.core.data.Percentage.withPercentage(1));
    assertThat(buckets.value(buckets.maxKey()))
        .isCloseTo(1e15, org.assertj.core.data.Percentage.withPercentage(1));
  }

  @Test
  void badArguments_areRefusedWithTheAllowedRange() {
    for (double a : new double[] {0, 0.0009, 0.21, Double.NaN, -0.01}) {
      assertThatThrownBy(() -> LogBuckets.of(a, 1e-9, 1e15))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("relativeAccuracy must be in [0.001, 0.2]");
    }
    assertThatThrownBy(() -> LogBuckets.of(0.01, 0, 1)).hasMessageContaining("minMagnitude");
    assertThatThrownBy(() -> LogBuckets.of(0.01, 2, 1)).hasMessageContaining("minMagnitude");
    assertThatThrownBy(() -> LogBuckets.of(0.01, 1, Double.POSITIVE_INFINITY))
        .hasMessageContaining("maxMagnitude");
    assertThatThrownBy(() -> LogBuckets.of(0.001, Double.MIN_NORMAL, Double.MAX_VALUE))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 262144");
    assertThat(LogBuckets.of(0.01, Double.MIN_NORMAL, Double.MAX_VALUE).maxKey())
        .isLessThan(LogBuckets.MAX_BUCKETS / 2);
  }
}
