package io.windowpane.internal.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A pane window decided against a lower limit than the one it was made for (a limiter
 * reconfigured at run time): a pane opened hot under the old limit holds an allotment that may
 * not fit the new one, so its stripes must not spend it.
 */
class LoweredLimitTest {

  private static final long LIMIT = 1_024; // chunk 32, allotment 8 x 32 = 256
  private static final long LOWER = 300;

  @Test
  void hotPaneOpenedUnderTheOldLimit_isMadeExact_andTheStripesAcrossThreadsStayWithinTheNewOne()
      throws Exception {
    long now = 1_000_000_000_000L; // on a pane edge
    PaneWindow w = PaneWindow.stripedFor(100, 10, false, LIMIT, now);
    assertThat(w.reserve(now, 100, LIMIT)).isNotEqualTo(Window.DENIED); // 100 in the first pane
    long next = now + 100;
    assertThat(w.reserve(next, 1, LIMIT)).isNotEqualTo(Window.DENIED);
    assertThat(w.hotAt(next)).as("opened hot under the old limit").isTrue();

    assertThat(w.reserve(next, 1, LOWER)).isNotEqualTo(Window.DENIED);
    assertThat(w.hotAt(next)).as("older 100 + allotment 256 > 300: the pane is made exact")
        .isFalse();

    AtomicLong allowed = new AtomicLong(2);
    Set<Long> stripes = new HashSet<>();
    List<Thread> threads = new ArrayList<>();
    while (stripes.size() < PaneWindow.STRIPES) { // one thread per stripe, one after the other
      Thread t = new Thread(() -> {
        while (w.reserve(next, 1, LOWER) != Window.DENIED) {
          allowed.incrementAndGet();
        }
      });
      if (stripes.add(t.getId() & (PaneWindow.STRIPES - 1))) {
        threads.add(t);
      }
    }
    for (Thread t : threads) {
      t.start();
      t.join();
    }
    assertThat(w.count(next)).isEqualTo(LOWER);
    assertThat(allowed.get()).isEqualTo(LOWER - 100);
  }

  @Test
  void raisedLimit_keepsTheStripes() {
    long now = 1_000_000_000_000L;
    PaneWindow w = PaneWindow.stripedFor(100, 10, false, LIMIT, now);
    assertThat(w.reserve(now, 1, LIMIT)).isNotEqualTo(Window.DENIED);
    assertThat(w.hotAt(now)).isTrue();
    assertThat(w.reserve(now, 1, 2 * LIMIT)).isNotEqualTo(Window.DENIED);
    assertThat(w.hotAt(now)).isTrue();
    assertThat(w.count(now)).isEqualTo(2);
  }
}
