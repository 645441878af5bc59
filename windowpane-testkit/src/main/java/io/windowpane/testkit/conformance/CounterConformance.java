package io.windowpane.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.ManualClock;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Conformance of sliding-window counters: window edges for each algorithm, pane wrap, expiry,
 * batch and async forms, and bad input. Every test runs from each of {@link #startInstants()}.
 */
public abstract class CounterConformance extends ConformanceBase {

  private static final Duration SECOND = Duration.ofSeconds(1);

  private WindowCounter counter(ManualClock clock, WindowSpec spec) {
    Windowpane wp = engine(clock);
    return wp.counter(uniqueName("counter"), spec);
  }

  private static List<WindowSpec> everyAlgorithm() {
    return List.of(WindowSpec.panes(SECOND, 10), WindowSpec.log(SECOND), WindowSpec.weighted(SECOND));
  }

  @Test
  void add_returnsTheWindowCountIncludingTheNewEvents() {
    for (long t0 : startInstants()) {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(Math.floorDiv(t0, 1000) * 1000 + 10);
        WindowCounter counter = counter(clock, spec);
        assertThat(counter.count("k")).as("%s from %d", spec, t0).isZero();
        assertThat(counter.add("k")).as("%s from %d", spec, t0).isEqualTo(1);
        assertThat(counter.add("k", 5)).as("%s from %d", spec, t0).isEqualTo(6);
        clock.advance(1);
        assertThat(counter.add("k", 2)).as("%s from %d", spec, t0).isEqualTo(8);
        assertThat(counter.count("k")).isEqualTo(8);
        assertThat(counter.count("other")).isZero();
      }
    }
  }

  @Test
  void record_countsLikeAddWithoutReturningTheCount() {
    for (long t0 : startInstants()) {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(Math.floorDiv(t0, 1000) * 1000 + 10);
        WindowCounter counter = counter(clock, spec);
        counter.record("k");
        counter.record("k", 5);
        assertThat(counter.count("k")).as("%s from %d", spec, t0).isEqualTo(6);
        clock.advance(1);
        assertThat(counter.add("k", 2)).as("%s from %d", spec, t0).isEqualTo(8);
        counter.record("k", 3);
        assertThat(counter.count("k")).as("%s from %d", spec, t0).isEqualTo(11);
        clock.advance(1_500); // the events have left (weighted: less than half of them weigh)
        assertThat(counter.count("k")).as("%s from %d", spec, t0).isLessThan(11);
        assertThat(counter.count("other")).isZero();
      }
    }
  }

  @Test
  void log_countsEventsInTheHalfOpenWindow() {
    for (long t0 : startInstants()) {
      ManualClock clock = ManualClock.at(t0);
      WindowCounter counter = counter(clock, WindowSpec.log(SECOND));
      counter.add("k", 3);
      clock.advance(400);
      counter.add("k", 4);
      clock.set(t0 + 999);
      assertThat(counter.count("k")).as("from %d", t0).isEqualTo(7);
      clock.set(t0 + 1000);
      assertThat(counter.count("k")).as("from %d", t0).isEqualTo(4);
      clock.set(t0 + 1399);
      assertThat(counter.count("k")).isEqualTo(4);
      clock.set(t0 + 1400);
      assertThat(counter.count("k")).isZero();
    }
  }

  @Test
  void panes_eventLeavesExactlyWhenItsPaneLeaves() {
    for (long t0 : startInstants()) {
      long edge = Math.floorDiv(t0, 100) * 100; // a pane edge of 100 ms panes
      ManualClock clock = ManualClock.at(edge + 37);
      WindowCounter counter = counter(clock, WindowSpec.panes(SECOND, 10));
      counter.add("k", 2);
      clock.set(edge + 150);
      counter.add("k", 1);
      clock.set(edge + 999);
      assertThat(counter.count("k")).as("from %d", t0).isEqualTo(3);
      clock.set(edge + 1000); // the first pane left; the event at +37 is gone, 63 ms early
      assertThat(counter.count("k")).as("from %d", t0).isEqualTo(1);
      clock.set(edge + 1099);
      assertThat(counter.count("k")).isEqualTo(1);
      clock.set(edge + 1100);
      assertThat(counter.count("k")).isZero();
    }
  }

  @Test
  void weighted_weighsThePreviousWindowByItsOverlap() {
    for (long t0 : startInstants()) {
      long edge = Math.floorDiv(t0, 1000) * 1000;
      ManualClock clock = ManualClock.at(edge + 10);
      WindowCounter counter = counter(clock, WindowSpec.weighted(SECOND));
      counter.add("k", 100);
      clock.set(edge + 999);
      assertThat(counter.count("k")).isEqualTo(100);
      clock.set(edge + 1000);
      assertThat(counter.count("k")).as("from %d", t0).isEqualTo(100);
      clock.set(edge + 1250);
      assertThat(counter.count("k")).as("from %d", t0).isEqualTo(75);
      clock.set(edge + 1999);
      assertThat(counter.count("k")).as("rounded up").isEqualTo(1);
      clock.set(edge + 2000);
      assertThat(counter.count("k")).isZero();
    }
  }

  @Test
  void panes_ringWrapsManyTimesWithoutLeakingOldCounts() {
    for (long t0 : startInstants()) {
      ManualClock clock = ManualClock.at(Math.floorDiv(t0, 250) * 250);
      WindowCounter counter = counter(clock, WindowSpec.panes(SECOND, 4));
      for (int i = 0; i < 80; i++) {
        assertThat(counter.add("k", i + 1)).as("step %d from %d", i, t0)
            .isEqualTo(sumOfLast(i + 1, 4));
        clock.advance(250);
      }
    }
  }

  private static long sumOfLast(int upTo, int panes) {
    long sum = 0;
    for (int v = Math.max(1, upTo - panes + 1); v <= upTo; v++) {
      sum += v;
    }
    return sum;
  }

  @Test
  void idleKey_disappearsWithinWindowPlusResolution() {
    for (long t0 : startInstants()) {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(t0);
        WindowCounter counter = counter(clock, spec);
        counter.add("k");
        assertThat(counter.holdsState("k")).isTrue();
        assertThat(counter.holdsState("never")).isFalse();
        clock.set(t0 + spec.expiryMillis());
        counter.cleanUp();
        assertThat(counter.holdsState("k")).as("%s from %d", spec, t0).isFalse();
        assertThat(counter.count("k")).isZero();
        assertThat(counter.add("k")).as("a fresh start").isEqualTo(1);
      }
    }
  }

  @Test
  void badInput_isRefusedAndChangesNothing() {
    ManualClock clock = ManualClock.at(REALISTIC);
    WindowCounter counter = counter(clock, WindowSpec.panes(SECOND, 10));
    counter.add("k", 2);
    assertThatThrownBy(() -> counter.add(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> counter.add("")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must be 1 to 256");
    assertThatThrownBy(() -> counter.add("x".repeat(257)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 257");
    assertThatThrownBy(() -> counter.add("k", 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("n must be in [1, 2147483647]");
    assertThatThrownBy(() -> counter.add("k", -5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> counter.add("k", 1L << 31))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> counter.addAsync("k", 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> counter.record("")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must be 1 to 256");
    assertThatThrownBy(() -> counter.record("k", 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("n must be in [1, 2147483647]");
    assertThatThrownBy(() -> counter.addAll(List.of("a", ""), 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keys[1]");
    assertThat(counter.count("k")).isEqualTo(2);
    assertThat(counter.count("a")).isZero();
  }

  @Test
  void batchAndAsyncForms_answerLikeTheSingleForms() throws Exception {
    ManualClock clock = ManualClock.at(REALISTIC);
    WindowCounter counter = counter(clock, WindowSpec.panes(SECOND, 10));
    assertThat(counter.addAll(List.of("a", "b", "a"), 2)).containsExactly(2L, 2L, 4L);
    assertThat(counter.countAll(List.of("b", "a", "none"))).containsExactly(2L, 4L, 0L);
    assertThat(counter.addAsync("a", 1).toCompletableFuture().get()).isEqualTo(5);
    assertThat(counter.countAsync("a").toCompletableFuture().get()).isEqualTo(5);
    assertThat(counter.addAllAsync(List.of("b"), 3).toCompletableFuture().get())
        .containsExactly(5L);
    assertThat(counter.countAllAsync(List.of("a", "b")).toCompletableFuture().get())
        .containsExactly(5L, 5L);
  }
}
