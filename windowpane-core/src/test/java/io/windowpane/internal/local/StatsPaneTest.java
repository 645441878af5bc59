package io.windowpane.internal.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.LogBuckets;
import io.windowpane.LogHistogram;
import io.windowpane.Summary;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

class StatsPaneTest {

  private final LogBuckets buckets = LogBuckets.defaults();

  @Test
  void maxStripes_isTheProcessorsRoundedUpToAPowerOfTwo_atMostEight() {
    assertThat(StatsPane.maxStripes(1)).isEqualTo(1);
    assertThat(StatsPane.maxStripes(2)).isEqualTo(2);
    assertThat(StatsPane.maxStripes(3)).isEqualTo(4);
    assertThat(StatsPane.maxStripes(4)).isEqualTo(4);
    assertThat(StatsPane.maxStripes(5)).isEqualTo(8);
    assertThat(StatsPane.maxStripes(96)).isEqualTo(8);
  }

  @Test
  void aPaneNobodyRacesOn_keepsOneStripe() {
    StatsPane pane = new StatsPane(7, buckets, 1);
    for (int i = 0; i < 10_000; i++) {
      pane.record(i, buckets);
    }
    assertThat(pane.stripeCount()).isEqualTo(1);
  }

  private static final int THREADS = 4;
  private static final int PER_THREAD = 200_000;

  @Test
  void threadsRacingOnOnePane_spreadOverStripes_andTheSummaryLosesNothing() throws Exception {
    HistogramRing ring = race();
    LogHistogram expected = new LogHistogram(buckets);
    double sum = 0; // multiples of 0.5 whose partial sums stay far below 2^52: exact
    for (int t = 0; t < THREADS; t++) {
      for (int i = 0; i < PER_THREAD; i++) {
        double v = t * 1_000_000 + i - 300_000.5;
        expected.record(v);
        sum += v;
      }
    }
    Summary s = ring.summary(5_000);
    assertThat(s.count()).isEqualTo((long) THREADS * PER_THREAD);
    assertThat(s.sum()).isEqualTo(sum);
    assertThat(s.min()).isEqualTo(-300_000.5);
    assertThat(s.max()).isEqualTo((THREADS - 1) * 1_000_000 + PER_THREAD - 1 - 300_000.5);
    LogHistogram merged = s.histogram().orElseThrow();
    assertThat(merged.keys()).containsExactly(expected.keys());
    for (int key : expected.keys()) {
      assertThat(merged.count(key)).as("bucket %d", key).isEqualTo(expected.count(key));
    }
    if (StatsPane.MAX_STRIPES > 1) {
      // Threads that really run at once collide and the pane spreads. On a loaded machine the
      // scheduler may run them one after another, so race again (bounded) before calling it.
      int rounds = 1;
      while (ring.paneAt(5_000).stripeCount() == 1 && rounds < 20) {
        ring = race();
        rounds++;
      }
      assertThat(ring.paneAt(5_000).stripeCount()).as("stripes after %d races", rounds)
          .isGreaterThan(1);
    }
  }

  /** Four threads, started together, record 200,000 values each into one pane. */
  private HistogramRing race() throws InterruptedException {
    HistogramRing ring = new HistogramRing(1000, 1, buckets);
    CyclicBarrier start = new CyclicBarrier(THREADS);
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int me = t;
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        for (int i = 0; i < PER_THREAD; i++) {
          if (i % 2 == 0) {
            ring.record(5_000, me * 1_000_000 + i - 300_000.5);
          } else {
            ring.record(5_000, new double[] {me * 1_000_000 + i - 300_000.5});
          }
        }
      });
      thread.start();
      running.add(thread);
    }
    for (Thread thread : running) {
      thread.join(60_000);
    }
    return ring;
  }
}
