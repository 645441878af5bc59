package io.windowpane.internal.local;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogWindowTest {

  @Test
  void ring_isSizedByTheSmallerOfLimitAndWindowMilliseconds() {
    assertThat(LogWindow.forLimit(1_000, 1_000, 0).capacity()).isEqualTo(1024);
    assertThat(LogWindow.forLimit(1_000, 100_000, 0).capacity()).isEqualTo(1024);
    assertThat(LogWindow.forLimit(3_600_000, 10, 0).capacity()).isEqualTo(32);
    assertThat(LogWindow.forCounter(1_000, 0).capacity()).isEqualTo(1024);
    assertThat(LogWindow.forCounter(3_600_000, 0).capacity()).isEqualTo(LogWindow.MAX_COUNTER_ENTRIES);
  }

  @Test
  void eventsOfOneMillisecond_shareOneEntry() {
    LogWindow log = LogWindow.forLimit(1_000, 100_000, 0);
    for (int i = 0; i < 50_000; i++) {
      assertThat(log.reserve(7, 1, 100_000)).isNotEqualTo(Window.DENIED);
      log.commit(7, 1, 0);
    }
    assertThat(log.count(1_006)).isEqualTo(50_000);
    assertThat(log.count(1_007)).isZero();
  }

  @Test
  void add_largerThanAnEntry_isSplitAndStaysExact() {
    LogWindow log = LogWindow.forCounter(1_000, 0);
    long n = Integer.MAX_VALUE;
    assertThat(log.add(5, n)).isEqualTo(n);
    assertThat(log.add(6, n)).isEqualTo(2 * n);
    assertThat(log.count(1_005)).isEqualTo(n);
    assertThat(log.count(1_006)).isZero();
  }

  @Test
  void counterRing_whenFull_keepsTheCountExactAndHoldsEventsLonger() {
    long window = 200_000;
    LogWindow log = LogWindow.forCounter(window, 0);
    int distinct = LogWindow.MAX_COUNTER_ENTRIES + 5_000;
    for (int t = 0; t < distinct; t++) {
      log.add(t, 1);
    }
    assertThat(log.count(distinct - 1)).isEqualTo(distinct);
    // the overflowing events were folded into the newest entry: they leave no earlier
    assertThat(log.count(window + distinct - 2)).isPositive();
    assertThat(log.count(window + distinct)).isZero();
  }

  @Test
  void retryAfter_isWhenEnoughOfTheOldestEntriesLeave() {
    LogWindow log = LogWindow.forLimit(1_000, 10, 0);
    for (long t : new long[] {100, 100, 300, 650}) {
      log.reserve(t, 2, 10);
      log.commit(t, 2, 0);
    }
    // 8 in the window; 5 more need 3 out: the two entries at 100 (4 permits) leave at 1100
    assertThat(log.retryAfter(700, 5, 10)).isEqualTo(400);
    assertThat(log.retryAfter(700, 2, 10)).isZero();
  }
}
