package io.windowpane.internal.buffering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Buffering;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Engine;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Buffering through the public API: bad options are refused naming the argument and change
 * nothing, names keep their buffering, unbuffered windows report none, {@code flush()} sends
 * and {@code close()} flushes first.
 */
class BufferingWindowpaneTest {

  private static final long T0 = 1_700_000_000_000L;
  private static final WindowSpec HOUR = WindowSpec.panes(Duration.ofHours(1), 60);
  private static final StatsSpec MINUTE = StatsSpec.exact(Duration.ofMinutes(1));

  private final ManualClock clock = ManualClock.at(T0);
  private final Engine engine = Windowpane.localBuilder().clock(clock).buildEngine();
  private final Buffering buffering = Buffering.of(Duration.ofMinutes(1)).clock(clock);
  private final CounterStore counts = engine.counterStore("c", HOUR);
  private final StatsStore values = engine.statsStore("s", MINUTE);
  private final List<Object> asked = new ArrayList<>(); // the specs unclosed() was asked for

  /**
   * The engine, with close left to the test (so it can read what a closed Windowpane sent); the
   * windows "c" and "s" are {@link #counts} and {@link #values}; the specs asked for go to
   * {@link #asked}.
   */
  private Engine unclosed() {
    return new Engine() {
      @Override
      public String name() {
        return engine.name();
      }

      @Override
      public CounterStore counterStore(String name, WindowSpec spec) {
        asked.add(spec);
        return name.equals("c") ? counts : engine.counterStore(name, spec);
      }

      @Override
      public LimiterStore limiterStore(String name, Quota quota) {
        return engine.limiterStore(name, quota);
      }

      @Override
      public StatsStore statsStore(String name, StatsSpec spec) {
        asked.add(spec);
        return name.equals("s") ? values : engine.statsStore(name, spec);
      }

      @Override
      public void close() {}
    };
  }

  @Test
  void badOptions_areRefusedNamingTheArgument() {
    assertThatThrownBy(() -> Buffering.of(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxStaleness must be in [1 ms, 60000 ms], was PT0S");
    assertThatThrownBy(() -> Buffering.of(Duration.ofMinutes(2)))
        .hasMessageContaining("maxStaleness must be in [1 ms, 60000 ms]");
    assertThatThrownBy(() -> Buffering.of(null)).hasMessage("maxStaleness must not be null");
    assertThatThrownBy(() -> buffering.maxPending(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("values must be in [1, 10000], was 0");
    assertThatThrownBy(() -> buffering.maxPending(10_001))
        .hasMessage("values must be in [1, 10000], was 10001");
    assertThatThrownBy(() -> buffering.clock(null)).hasMessage("clock must not be null");
    assertThat(buffering.maxPending()).isEqualTo(Buffering.MAX_PENDING); // unchanged
    assertThat(buffering.maxStalenessMillis()).isEqualTo(60_000);
    assertThat(buffering.maxPending(5)).isEqualTo(buffering.maxPending(5))
        .isNotEqualTo(buffering).hasToString("Buffering(staleness 60000 ms, pending <= 5)");
  }

  @Test
  void buffering_isAnOptionOfTheSpec_likeTopKeys() {
    assertThatThrownBy(() -> HOUR.withBuffering(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("buffering must not be null");
    assertThatThrownBy(() -> MINUTE.withBuffering(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("buffering must not be null");
    assertThat(HOUR.buffering()).isEmpty();
    assertThat(MINUTE.buffering()).isEmpty();
    assertThat(HOUR.withoutBuffering()).isSameAs(HOUR);
    assertThat(MINUTE.withoutBuffering()).isSameAs(MINUTE);

    WindowSpec buffered = HOUR.withTopKeys(8).withBuffering(buffering);
    assertThat(buffered.buffering()).contains(buffering);
    assertThat(buffered.topKeys()).isEqualTo(8);
    assertThat(buffered.withoutTopKeys().buffering()).contains(buffering);
    assertThat(buffered).isEqualTo(HOUR.withBuffering(buffering).withTopKeys(8))
        .hasSameHashCodeAs(HOUR.withBuffering(buffering).withTopKeys(8))
        .isNotEqualTo(HOUR.withTopKeys(8))
        .isNotEqualTo(HOUR.withTopKeys(8).withBuffering(buffering.maxPending(1)))
        .hasToString("SLIDING_PANES(1h / 60 panes, top keys 8, Buffering(staleness 60000 ms))");
    assertThat(buffered.withoutBuffering()).isEqualTo(HOUR.withTopKeys(8));

    StatsSpec stats = StatsSpec.histogram(Duration.ofMinutes(1), 12).withBuffering(buffering)
        .withRelativeAccuracy(0.005).withTopKeys(4);
    assertThat(stats.buffering()).contains(buffering);
    assertThat(stats.withoutBuffering()).isEqualTo(StatsSpec.histogram(Duration.ofMinutes(1), 12)
        .withRelativeAccuracy(0.005).withTopKeys(4));
    assertThat(stats.window().buffering()).isEmpty(); // the spec's, not its window's
    assertThat(MINUTE.withBuffering(buffering).withMaxValues(5).buffering()).contains(buffering);
    assertThat(MINUTE.withBuffering(buffering)).isNotEqualTo(MINUTE)
        .hasToString("exact(1m, max 100000 values) with Buffering(staleness 60000 ms)");
  }

  @Test
  void aLimitsWindow_withBuffering_isRefused_limitersTakeLeasing() {
    Limit limit = Limit.of(10, HOUR.withBuffering(buffering));
    assertThatThrownBy(() -> Quota.of(limit))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("buffering is for counters and statistics windows")
        .hasMessageContaining("Quota.withLeasing");
  }

  @Test
  void theEngine_getsTheWindowWithoutBuffering() {
    try (Windowpane wp = Windowpane.using(unclosed())) {
      WindowCounter c = wp.counter("bc", HOUR.withBuffering(buffering));
      WindowStats s = wp.stats("bs", MINUTE.withBuffering(buffering));
      assertThat(asked).containsExactly(HOUR, MINUTE);
      assertThat(c.spec().buffering()).contains(buffering);
      assertThat(s.spec().buffering()).contains(buffering);
    }
  }

  @Test
  void names_keepTheirBuffering_andUnbufferedWindowsReportNone() {
    try (Windowpane wp = Windowpane.using(unclosed())) {
      WindowCounter c = wp.counter("c", HOUR.withBuffering(buffering));
      assertThat(wp.counter("c", HOUR.withBuffering(buffering))).isSameAs(c);
      assertThatThrownBy(() -> wp.counter("c", HOUR))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("name 'c' already names a counter over SLIDING_PANES(1h / 60 panes,"
              + " Buffering(staleness 60000 ms)), not SLIDING_PANES(1h / 60 panes)");
      assertThatThrownBy(() -> wp.counter("c", HOUR.withBuffering(buffering.maxPending(1))))
          .isInstanceOf(IllegalArgumentException.class);
      WindowCounter plain = wp.counter("plain", HOUR);
      assertThat(plain.bufferStats()).isEmpty();
      assertThat(plain.spec().buffering()).isEmpty();
      plain.flush(); // nothing to do
      assertThatThrownBy(() -> wp.counter("plain", HOUR.withBuffering(buffering)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(c.spec().buffering()).contains(buffering);
      assertThat(c.bufferStats()).isPresent();
      WindowStats s = wp.stats("s", MINUTE.withBuffering(buffering));
      assertThatThrownBy(() -> wp.stats("s", MINUTE))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(s.bufferStats()).isPresent();
      assertThat(wp.stats("plainStats", MINUTE).bufferStats()).isEmpty();
    }
  }

  @Test
  void theFlusherThread_sendsPendingEventsWithinItsPeriod() {
    // the one test on real time: the flusher thread runs every S/2 = 10 ms of this JVM's clock;
    // the loop only waits for its effect, bounded at 10 s (normally done within a few rounds)
    try (Windowpane wp = Windowpane.using(unclosed())) {
      WindowCounter c = wp.counter("c", HOUR.withBuffering(Buffering.of(Duration.ofMillis(20))));
      WindowStats s = wp.stats("s", MINUTE.withBuffering(Buffering.of(Duration.ofMillis(20))));
      c.record("k", 7);
      s.record("k", 1.0);
      long deadline = System.nanoTime() + 10_000_000_000L;
      while ((counts.count("k") < 7 || values.summary("k").count() < 1)
          && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(counts.count("k")).isEqualTo(7);
      assertThat(values.summary("k").count()).isEqualTo(1);
    }
  }

  @Test
  void flush_sends_andCloseFlushesFirst() {
    Windowpane wp = Windowpane.using(unclosed());
    WindowCounter c = wp.counter("c", HOUR.withBuffering(buffering));
    WindowStats s = wp.stats("s", MINUTE.withBuffering(buffering));
    c.add("k");
    c.record("k", 4);
    s.record("k", 2.0);
    assertThat(counts.count("k")).isEqualTo(1);
    c.flush();
    s.flush();
    assertThat(counts.count("k")).isEqualTo(5);
    assertThat(values.summary("k").count()).isEqualTo(1);
    c.record("k", 10);
    s.recordAll("k", 1.0, 3.0);
    wp.close();
    assertThat(counts.count("k")).isEqualTo(15);
    assertThat(values.summary("k").count()).isEqualTo(3);
    engine.close();
  }
}
