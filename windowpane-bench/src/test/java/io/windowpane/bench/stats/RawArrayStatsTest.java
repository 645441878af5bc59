package io.windowpane.bench.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.windowpane.ManualClock;
import io.windowpane.Summary;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The raw-array peer computes what windowpane's exact summary computes, over the same window. */
class RawArrayStatsTest {

  private static final long W = 60_000;
  private static final double[] QUANTILES = {0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1};

  @Test
  void summary_matchesSummaryOfValues_overTheLiveValues() {
    ManualClock clock = ManualClock.at(-7_919); // before zero: floor arithmetic is not assumed
    RawArrayStats raw = new RawArrayStats(clock, W);
    List<long[]> log = new ArrayList<>(); // (time, value bits) of everything recorded
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 20_000; i++) {
      clock.advance(random.nextInt(10)); // several values per millisecond, 2-3 windows in all
      double v = (random.nextDouble() - 0.3) * Math.pow(10, random.nextInt(6));
      raw.record("k", v);
      log.add(new long[] {clock.millis(), Double.doubleToRawLongBits(v)});
      if (i % 997 == 0) {
        assertSame(raw.summary("k"), live(log, clock.millis()));
      }
    }
    assertSame(raw.summary("k"), live(log, clock.millis()));
  }

  @Test
  void window_isHalfOpen_aValueExactlyWAgoIsGone() {
    ManualClock clock = ManualClock.at(1_000);
    RawArrayStats raw = new RawArrayStats(clock, W);
    raw.record("k", 1);
    clock.advance(1);
    raw.record("k", 2);
    clock.advance(W - 2); // the first is W - 1 old, the second W - 2
    assertThat(raw.summary("k").count()).isEqualTo(2);
    clock.advance(1); // the first is W old
    assertThat(raw.summary("k").count()).isEqualTo(1);
    assertThat(raw.summary("k").min()).isEqualTo(2);
    clock.advance(1);
    assertThat(raw.summary("k").count()).isZero();
    assertThat(raw.summary("k").quantile(0.99)).isNaN();
    assertThat(raw.summary("never").count()).isZero();
  }

  @Test
  void ring_keepsOrderWhenItGrowsAfterWrappingAround() {
    ManualClock clock = ManualClock.at(0);
    RawArrayStats raw = new RawArrayStats(clock, 10);
    for (int i = 0; i < 12; i++) { // head moves off slot 0 as old values expire
      raw.record("k", i);
      clock.advance(1);
    }
    for (int i = 12; i < 100; i++) { // then the ring fills, wrapped, and grows
      raw.record("k", i);
    }
    RawSummary s = raw.summary("k");
    assertThat(s.count()).isEqualTo(10 - 1 + 88); // values 3..11 (times 3..11) and 12..99 at 12
    assertThat(s.min()).isEqualTo(3);
    assertThat(s.max()).isEqualTo(99);
    assertThat(raw.capacity("k")).isEqualTo(128);
  }

  @Test
  void traffic_holdsTheWindowAtItsPopulation_whileTheClockMovesWithTheEvents() throws Exception {
    WindowTraffic traffic = new WindowTraffic(W, 10_000, 1);
    ManualClock clock = ManualClock.at(0);
    RawArrayStats raw = new RawArrayStats(clock, W);
    LatencyValues values = LatencyValues.seeded(1);
    traffic.prefill(clock, 2, WindowTraffic.PREFILL_BATCHES_PER_WINDOW, values,
        (key, time, batch) -> {
          for (double v : batch) {
            raw.record("k", v);
          }
        });
    assertThat(clock.millis()).isEqualTo(traffic.endOfPrefill(2));
    assertThat(raw.count("k")).isEqualTo(10_000);
    WindowTraffic.Shared shared = traffic.shared(clock);
    for (int i = 0; i < 25_000; i++) {
      long e = shared.next();
      raw.record("k", values.at(e));
      assertThat((long) raw.count("k"))
          .isBetween(10_000L - traffic.eventsPerStep() + 1, 10_000L);
    }
    long steps = (25_000 + traffic.eventsPerStep() - 1) / traffic.eventsPerStep(); // the first call steps
    assertThat(clock.millis()).isEqualTo(traffic.endOfPrefill(2) + steps * traffic.stepMillis());
  }

  /** Same values: count, min, max and every quantile exactly; the sum within a plain sum's error. */
  private static void assertSame(RawSummary raw, double[] live) {
    Summary exact = Summary.ofValues(live);
    assertThat(raw.count()).isEqualTo(exact.count());
    if (exact.isEmpty()) {
      return;
    }
    assertThat(raw.min()).isEqualTo(exact.min());
    assertThat(raw.max()).isEqualTo(exact.max());
    double sumOfMagnitudes = 0;
    for (double v : live) {
      sumOfMagnitudes += Math.abs(v);
    }
    double error = live.length * Math.ulp(1.0) * sumOfMagnitudes; // recursive summation's bound
    assertThat(raw.sum()).isCloseTo(exact.sum(), within(error));
    assertThat(raw.mean()).isCloseTo(exact.mean(), within(error / live.length));
    for (double q : QUANTILES) {
      assertThat(raw.quantile(q)).as("q=%s", q).isEqualTo(exact.quantile(q));
    }
  }

  private static double[] live(List<long[]> log, long now) {
    return log.stream().filter(e -> now - e[0] < W)
        .mapToDouble(e -> Double.longBitsToDouble(e[1])).toArray();
  }
}
