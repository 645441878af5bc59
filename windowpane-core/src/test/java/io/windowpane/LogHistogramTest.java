package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class LogHistogramTest {

  private final LogBuckets buckets = LogBuckets.defaults();

  @Test
  void counts_growInBothDirectionsAndMergeBucketByBucket() {
    LogHistogram a = new LogHistogram(buckets);
    LogHistogram b = new LogHistogram(buckets);
    LogHistogram all = new LogHistogram(buckets);
    Random random = new Random(3);
    for (int i = 0; i < 20_000; i++) {
      double v = Math.pow(10, -6 + 15 * random.nextDouble()) * (random.nextBoolean() ? 1 : -1);
      (i % 2 == 0 ? a : b).record(v);
      all.record(v);
    }
    a.merge(b);
    assertThat(a.totalCount()).isEqualTo(20_000);
    assertThat(a.keys()).containsExactly(all.keys());
    for (int key : all.keys()) {
      assertThat(a.count(key)).isEqualTo(all.count(key));
    }
    assertThat(a.count(buckets.maxKey())).isZero();
  }

  @Test
  void keyAtRank_walksTheBucketsInValueOrder() {
    LogHistogram h = new LogHistogram(buckets);
    h.record(-5);
    h.record(0);
    h.record(0);
    h.record(7);
    assertThat(h.keyAtRank(0)).isEqualTo(buckets.key(-5));
    assertThat(h.keyAtRank(1)).isZero();
    assertThat(h.keyAtRank(2)).isZero();
    assertThat(h.keyAtRank(3)).isEqualTo(buckets.key(7));
    assertThatThrownBy(() -> h.keyAtRank(4)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rank must be in [0, 3]");
  }

  @Test
  void edgeKeys_fitEvenInTheSmallestMapping() {
    LogBuckets tiny = LogBuckets.of(0.2, 1, 2); // a handful of buckets
    LogHistogram h = new LogHistogram(tiny);
    for (int k = -tiny.maxKey(); k <= tiny.maxKey(); k++) {
      h.add(k, 2);
    }
    h.add(tiny.maxKey(), 1);
    h.add(-tiny.maxKey(), 1);
    assertThat(h.totalCount()).isEqualTo(2L * (2 * tiny.maxKey() + 1) + 2);
    assertThat(h.keyAtRank(h.totalCount() - 1)).isEqualTo(tiny.maxKey());
  }

  @Test
  void badArguments_areRefused() {
    LogHistogram h = new LogHistogram(buckets);
    assertThatThrownBy(() -> h.add(buckets.maxKey() + 1, 1))
        .hasMessageContaining("key must be in [-2764, 2764]");
    assertThatThrownBy(() -> h.add(0, 0)).hasMessageContaining("count must be at least 1");
    assertThatThrownBy(() -> h.merge(new LogHistogram(LogBuckets.of(0.02, 1e-9, 1e15))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot merge");
    assertThat(h.totalCount()).isZero();
  }
}
