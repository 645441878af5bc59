package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SummaryTest {

  @Test
  void ofValues_isExactAndIndependentOfItsArray() {
    double[] values = {5, -1, 3, 0};
    Summary s = Summary.ofValues(values);
    values[0] = 100;
    assertThat(s.count()).isEqualTo(4);
    assertThat(s.sum()).isEqualTo(7);
    assertThat(s.mean()).isEqualTo(1.75);
    assertThat(s.min()).isEqualTo(-1);
    assertThat(s.max()).isEqualTo(5);
    assertThat(s.quantile(0)).isEqualTo(-1);
    assertThat(s.quantile(0.5)).isEqualTo(3); // rank round(0.5 * 3) = 2 of [-1, 0, 3, 5]
    assertThat(s.quantile(1)).isEqualTo(5);
    assertThat(s.isExact()).isTrue();
    assertThat(s.relativeAccuracy()).isZero();
    assertThat(s.histogram()).isEmpty();
  }

  @Test
  void ofHistogram_clampsEstimatesIntoMinAndMax() {
    LogBuckets buckets = LogBuckets.of(0.2, 1e-3, 1e3);
    LogHistogram h = new LogHistogram(buckets);
    h.record(10);
    h.record(10);
    h.record(10);
    Summary s = Summary.ofHistogram(3, 30, 10, 10, h);
    assertThat(s.quantile(0.5)).isEqualTo(10); // the bucket reports ~10.1, the true value is 10
    assertThat(s.relativeAccuracy()).isEqualTo(0.2);
    assertThat(s.histogram()).get().extracting(LogHistogram::totalCount).isEqualTo(3L);
  }

  @Test
  void empty_reportsNaNButCountAndSumZero() {
    Summary s = Summary.ofHistogram(0, 5, 1, 2, new LogHistogram(LogBuckets.defaults()));
    assertThat(s.isEmpty()).isTrue();
    assertThat(s.sum()).isZero();
    assertThat(s.mean()).isNaN();
    assertThat(s.min()).isNaN();
    assertThat(s.quantile(0.99)).isNaN();
    assertThat(Summary.ofValues(new double[0]).quantile(0)).isNaN();
    assertThatThrownBy(() -> s.quantile(2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("q must be in [0, 1], was 2.0");
  }

  @Test
  void overflow_showsAsInfinityNeverAsAWrappedNumber() {
    Summary s = Summary.ofValues(new double[] {Double.MAX_VALUE, Double.MAX_VALUE});
    assertThat(s.sum()).isEqualTo(Double.POSITIVE_INFINITY);
  }
}
