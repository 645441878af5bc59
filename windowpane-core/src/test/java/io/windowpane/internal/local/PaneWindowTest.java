package io.windowpane.internal.local;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PaneWindowTest {

  @Test
  void ring_isTheNextPowerOfTwoAtLeastThePanes() {
    assertThat(PaneWindow.panes(10, 1, 0).ringSize()).isEqualTo(2);
    assertThat(PaneWindow.panes(10, 4, 0).ringSize()).isEqualTo(4);
    assertThat(PaneWindow.panes(10, 5, 0).ringSize()).isEqualTo(8);
    assertThat(PaneWindow.panes(10, 4096, 0).ringSize()).isEqualTo(4096);
  }

  @Test
  void count_afterIdlingManyLaps_forgetsEverything() {
    PaneWindow w = PaneWindow.panes(10, 4, 1_000);
    w.add(1_000, 5);
    // idle for a million panes (well within the 2^22 tag range): nothing may leak back
    assertThat(w.count(1_000 + 10_000_000L)).isZero();
    assertThat(w.add(1_000 + 10_000_000L, 1)).isEqualTo(1);
  }

  @Test
  void add_saturatesAPaneInsteadOfOverflowingIntoTheTag() {
    PaneWindow w = PaneWindow.panes(10, 2, 0);
    long max = PaneWindow.COUNT_MASK;
    w.add(0, max - 1);
    assertThat(w.add(0, 5)).isEqualTo(max);
    assertThat(w.add(10, 3)).isEqualTo(max + 3);
    assertThat(w.count(20)).isEqualTo(3);
  }

  @Test
  void clockSteppingBack_countsTheEventAtTheNewestPane() {
    PaneWindow w = PaneWindow.panes(100, 10, 0);
    w.add(550, 1);
    w.add(120, 1); // 430 ms late: recorded in pane 5, leaves with it
    assertThat(w.count(1_499)).isEqualTo(2);
    assertThat(w.count(1_500)).isZero();
  }

  @Test
  void reserve_beforeTheEpochAndNearLongMax_decidesLikeAnywhereElse() {
    for (long start : new long[] {-1_000_003, Long.MAX_VALUE - 10_000}) {
      PaneWindow w = PaneWindow.panes(100, 10, start);
      assertThat(w.reserve(start, 3, 3)).isNotEqualTo(Window.DENIED);
      assertThat(w.reserve(start + 1, 1, 3)).isEqualTo(Window.DENIED);
      long wait = w.retryAfter(start + 1, 1, 3);
      assertThat(wait).isBetween(901L, 1_000L); // the pane leaves 900 to 1000 ms after its event
      assertThat(w.reserve(start + 1 + wait - 1, 1, 3)).isEqualTo(Window.DENIED);
      assertThat(w.reserve(start + 1 + wait, 1, 3)).isNotEqualTo(Window.DENIED);
    }
  }

  @Test
  void cancel_givesTheReservationBack() {
    PaneWindow w = PaneWindow.panes(100, 10, 0);
    long receipt = w.reserve(50, 4, 5);
    assertThat(w.count(60)).isEqualTo(4);
    w.cancel(60, 4, receipt);
    assertThat(w.count(60)).isZero();
  }

  @Test
  void weighted_hugeLimitsOverLongWindows_stayExact() {
    long day = 86_400_000L;
    PaneWindow w = PaneWindow.weighted(365 * day, 0);
    long big = (1L << 40) - 1;
    w.add(0, big);
    // half way into the next window, half of the previous one still counts (rounded up)
    assertThat(w.count(365 * day + 365 * day / 2)).isEqualTo((big + 1) / 2);
    assertThat(w.retryAfter(365 * day, 1, big)).isEqualTo(1);
  }
}
