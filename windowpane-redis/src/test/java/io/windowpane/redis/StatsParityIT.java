package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.CapacityExceededException;
import io.windowpane.LogHistogram;
import io.windowpane.ManualClock;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Redis engine's statistics are the local engine's, bit for bit: the same operations at the
 * same instants give the same count, the same sum (to the last bit: both run the same
 * compensated summation in the same order), min, max and buckets, hence the same quantiles.
 * Stronger than the conformance suite, which checks each engine against the exact answer within
 * the stated precision.
 */
@ExtendWith(RedisServerExtension.class)
class StatsParityIT {

  private static final double[] QUANTILES = {0, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1};

  private final RedisServer redis;

  StatsParityIT(RedisServer redis) {
    this.redis = redis;
  }

  private static double value(Random random) {
    switch (random.nextInt(6)) {
      case 0:
        return random.nextBoolean() ? 0.0 : -0.0;
      case 1:
        return -Math.exp(random.nextGaussian() * 6); // negatives of many decades
      case 2:
        return random.nextInt(1000);
      case 3:
        return Math.scalb(random.nextDouble(), -1040 + random.nextInt(2060)); // outside the range
      default:
        return Math.exp(random.nextGaussian() * 3 + 2);
    }
  }

  /** Equal bits: NaN equals NaN (an empty summary), -0.0 differs from 0.0. */
  private static long bits(double d) {
    return Double.doubleToLongBits(d);
  }

  private static void assertSame(Summary redis, Summary local, String what) {
    assertThat(redis.count()).as("count, %s", what).isEqualTo(local.count());
    assertThat(bits(redis.sum())).as("sum %s vs %s, %s", redis.sum(), local.sum(), what)
        .isEqualTo(bits(local.sum()));
    assertThat(bits(redis.min())).as("min %s vs %s, %s", redis.min(), local.min(), what)
        .isEqualTo(bits(local.min()));
    assertThat(bits(redis.max())).as("max %s vs %s, %s", redis.max(), local.max(), what)
        .isEqualTo(bits(local.max()));
    if (local.isEmpty()) {
      return;
    }
    if (!local.isExact()) {
      LogHistogram r = redis.histogram().orElseThrow();
      LogHistogram l = local.histogram().orElseThrow();
      assertThat(r.keys()).as("buckets, %s", what).containsExactly(l.keys());
      for (int key : l.keys()) {
        assertThat(r.count(key)).as("bucket %d, %s", key, what).isEqualTo(l.count(key));
      }
    }
    for (double q : QUANTILES) {
      assertThat(bits(redis.quantile(q))).as("q%s, %s", q, what)
          .isEqualTo(bits(local.quantile(q)));
    }
  }

  @Test
  void randomRecordsAndSummaries_equalTheLocalEngines() {
    for (long t0 : TestEngines.startInstants()) {
      Random random = new Random(t0);
      ManualClock clock = ManualClock.at(t0);
      try (Windowpane onRedis = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
          Windowpane local = Windowpane.localBuilder().clock(clock).build()) {
        for (StatsSpec spec : List.of(StatsSpec.histogram(Duration.ofSeconds(1), 10),
            StatsSpec.histogram(Duration.ofMillis(600), 3).withRelativeAccuracy(0.002)
                .withTrackedRange(1e-3, 1e6),
            StatsSpec.exact(Duration.ofMillis(800)).withMaxValues(60))) {
          String name = "parity-" + t0 + "-" + spec.window().windowMillis();
          WindowStats r = onRedis.stats(name, spec);
          WindowStats l = local.stats(name, spec);
          for (int step = 0; step < 150; step++) {
            int kind = random.nextInt(10);
            if (kind == 0) {
              clock.advance(random.nextInt(2_000)); // sometimes past the whole window
            } else if (kind < 4) {
              clock.advance(random.nextInt(150));
            }
            String key = "k" + random.nextInt(2);
            if (random.nextBoolean()) {
              double[] values = new double[1 + random.nextInt(random.nextInt(5) == 0 ? 40 : 4)];
              for (int i = 0; i < values.length; i++) {
                values[i] = value(random);
              }
              recordBoth(r, l, key, values);
            } else {
              String what = spec + " step " + step + " from " + t0;
              assertSame(r.summary(key), l.summary(key), what);
            }
          }
        }
      }
    }
  }

  private static void recordBoth(WindowStats r, WindowStats l, String key, double[] values) {
    boolean refused = false;
    try {
      l.recordAll(key, values);
    } catch (CapacityExceededException e) {
      refused = true;
    }
    if (refused) {
      assertThatThrownBy(() -> r.recordAll(key, values))
          .isInstanceOf(CapacityExceededException.class);
    } else {
      r.recordAll(key, values);
    }
  }

  @Test
  void anIdleKey_summariesLeaveOutThePanesThatLeft_oneMorePaneAtATime() {
    for (long t0 : TestEngines.startInstants()) {
      Random random = new Random(t0);
      ManualClock clock = ManualClock.at(t0);
      try (Windowpane onRedis = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
          Windowpane local = Windowpane.localBuilder().clock(clock).build()) {
        StatsSpec spec = StatsSpec.histogram(Duration.ofSeconds(1), 10);
        WindowStats r = onRedis.stats("idle-" + t0, spec);
        WindowStats l = local.stats("idle-" + t0, spec);
        for (int pane = 0; pane < 10; pane++) { // ten panes stored
          double[] values = new double[1 + random.nextInt(30)];
          for (int i = 0; i < values.length; i++) {
            values[i] = value(random);
          }
          recordBoth(r, l, "k", values);
          clock.advance(100);
        }
        // no record from now on: the summaries see 1, 2, ... 10 stored panes gone (the server
        // subtracts them from the aggregate while they are fewer than the live ones, else it
        // merges the live ones)
        for (int gone = 1; gone <= 10; gone++) {
          assertSame(r.summary("k"), l.summary("k"), gone + " panes gone from " + t0);
          clock.advance(100);
        }
        assertThat(r.summary("k").isEmpty()).isTrue();
      }
    }
  }

  @Test
  void aCallerALapBehind_recordsAtTheNewestPane() {
    long t = 1_700_000_000_000L;
    ManualClock clock = ManualClock.at(t);
    try (Windowpane onRedis = TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS);
        Windowpane local = Windowpane.localBuilder().clock(clock).build()) {
      StatsSpec spec = StatsSpec.histogram(Duration.ofSeconds(1), 10);
      WindowStats r = onRedis.stats("lap", spec);
      WindowStats l = local.stats("lap", spec);
      recordBoth(r, l, "k", new double[] {1, 2});
      clock.set(t - 1_000); // a whole lap behind: acts at the newest pane, t's
      recordBoth(r, l, "k", new double[] {3});
      clock.set(t - 450); // within the lap: its own pane
      recordBoth(r, l, "k", new double[] {4});
      clock.set(t + 400); // panes t - 500 (exclusive) to t + 400: all four values
      assertThat(r.summary("k").count()).isEqualTo(4);
      assertSame(r.summary("k"), l.summary("k"), "before t's pane leaves");
      clock.set(t + 1_000);
      assertThat(r.summary("k").isEmpty()).as("3 went with t's pane").isTrue();
      assertSame(r.summary("k"), l.summary("k"), "after");
    }
  }
}
