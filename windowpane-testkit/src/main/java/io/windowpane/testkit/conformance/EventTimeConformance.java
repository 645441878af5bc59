package io.windowpane.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.EventTime;
import io.windowpane.EventTimeException;
import io.windowpane.ManualClock;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.spi.EventTimeResult;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Event time (docs/window-model.md, "Event time"): seeded out-of-order streams against the exact
 * {@link ReferenceModel} and {@link StatsModel}, which hold every event at its own time; the
 * lateness and skew edges; refusals that record nothing. The model's verdict for each event
 * comes from the definitions: ahead if {@code at > now + maxAhead}, late if
 * {@code min(at, now)} is before {@link EventTimeResult#earliestMillis}, else recorded at
 * {@code min(at, now)}. A failure names the seed and the step.
 */
public abstract class EventTimeConformance extends ConformanceBase {

  private static final Duration SECOND = Duration.ofSeconds(1);
  private static final long MAX_AHEAD = 40;
  private static final String[] KEYS = {"a", "b"};

  /** Events per window kind of the randomized tests. */
  protected int events() {
    return 300;
  }

  private static List<WindowSpec> counterSpecs() {
    return List.of(WindowSpec.log(SECOND), WindowSpec.panes(SECOND, 10),
        WindowSpec.weighted(SECOND));
  }

  private static EventTime dropping() {
    return EventTime.defaults().withMaxAhead(Duration.ofMillis(MAX_AHEAD)).droppingLate();
  }

  /** An event time around now: mostly late by up to W + 2r, sometimes ahead, past the skew. */
  private static long eventTime(Random random, long now, WindowSpec spec) {
    long reach = spec.windowMillis() + 2 * spec.resolutionMillis();
    int kind = random.nextInt(10);
    if (kind == 0) {
      return now + random.nextInt((int) (2 * MAX_AHEAD + 1)); // ahead: within the skew or past
    }
    return now - random.nextInt((int) Math.min(Integer.MAX_VALUE, reach));
  }

  @Test
  void counters_outOfOrderStream_countAsHadItArrivedInOrder() {
    int seed = 0;
    for (WindowSpec shape : counterSpecs()) {
      seed++;
      Random random = new Random(7_000 + seed);
      long[] starts = startInstants();
      ManualClock clock = ManualClock.at(starts[seed % starts.length]);
      Windowpane wp = engine(clock);
      WindowSpec spec = shape.withEventTime(dropping());
      WindowCounter counter = wp.counter(uniqueName("event-time"), spec);
      ReferenceModel model = new ReferenceModel();
      long dropped = 0;
      for (int i = 0; i < events(); i++) {
        clock.advance(random.nextInt(random.nextInt(8) == 0 ? 400 : 40));
        long now = clock.millis();
        String key = KEYS[random.nextInt(KEYS.length)];
        long at = eventTime(random, now, spec);
        long n = 1 + random.nextInt(4);
        String where = "seed " + seed + " step " + i + " " + spec + " now " + now + " at " + at;
        if (at > now + MAX_AHEAD) {
          assertThatThrownBy(() -> counter.add(key, n, at)).as(where)
              .isInstanceOf(EventTimeException.class).hasMessageContaining("atMillis");
        } else {
          long t = Math.min(at, now);
          if (t < EventTimeResult.earliestMillis(spec, now)) {
            dropped += n;
          } else {
            model.record(key, t, n);
          }
          assertThat(counter.add(key, n, at)).as(where).isEqualTo(model.count(key, spec, now));
        }
        if (random.nextInt(5) == 0) {
          String other = KEYS[random.nextInt(KEYS.length)];
          assertThat(counter.count(other)).as(where + " count of " + other)
              .isEqualTo(model.count(other, spec, now));
        }
      }
      assertThat(counter.lateEventsDropped()).as("dropped, seed " + seed).isEqualTo(dropped);
    }
  }

  @Test
  void counters_atTheLatenessAndSkewEdges_takeOrRefuseExactly() {
    for (long start : startInstants()) {
      ManualClock clock = ManualClock.at(start);
      Windowpane wp = engine(clock);
      for (WindowSpec shape : counterSpecs()) {
        WindowSpec spec = shape.withEventTime(EventTime.defaults()
            .withMaxAhead(Duration.ofMillis(MAX_AHEAD)));
        WindowCounter counter = wp.counter(uniqueName("edges"), spec);
        clock.advance(spec.windowMillis() + 37); // an instant inside a pane, the window full
        long now = clock.millis();
        long earliest = EventTimeResult.earliestMillis(spec, now);
        String where = spec + " at " + now;
        assertThat(counter.add("k", 1, earliest)).as(where).isEqualTo(1);
        assertThatThrownBy(() -> counter.add("k", 1, earliest - 1)).as(where)
            .isInstanceOfSatisfying(EventTimeException.class, e -> {
              assertThat(e.late()).isTrue();
              assertThat(e.getMessage()).contains("atMillis", Long.toString(earliest));
            });
        assertThat(counter.add("k", 2, now + MAX_AHEAD)).as(where).isEqualTo(3);
        assertThatThrownBy(() -> counter.add("k", 1, now + MAX_AHEAD + 1)).as(where)
            .isInstanceOfSatisfying(EventTimeException.class,
                e -> assertThat(e.late()).isFalse());
        assertThatThrownBy(() -> counter.addAsync("k", 1, Long.MIN_VALUE).toCompletableFuture()
            .join()).as(where).isInstanceOf(CompletionException.class)
            .hasCauseInstanceOf(EventTimeException.class);
        assertThatThrownBy(() -> counter.add("k", 1, Long.MAX_VALUE)).as(where)
            .isInstanceOf(EventTimeException.class);
        assertThat(counter.count("k")).as(where + ": refusals recorded nothing").isEqualTo(3);
        // the event at the earliest instant leaves the window 1 ms later, with its pane
        long leaves = spec.algorithm() == io.windowpane.Algorithm.SLIDING_LOG ? 1
            : spec.resolutionMillis() - Math.floorMod(now, spec.resolutionMillis());
        clock.advance(leaves);
        assertThat(counter.count("k")).as(where + " + " + leaves + " ms")
            .isEqualTo(spec.algorithm() == io.windowpane.Algorithm.SLIDING_WEIGHTED
                ? ReferenceModel.count(List.of(new long[] {earliest, 1}, new long[] {now, 2}),
                    spec, clock.millis())
                : 2);
      }
    }
  }

  @Test
  void counters_batchAtOneEventTime_judgesEveryKey() {
    ManualClock clock = ManualClock.at(REALISTIC + 5_000);
    Windowpane wp = engine(clock);
    WindowCounter counter = wp.counter(uniqueName("batch"),
        WindowSpec.panes(SECOND, 10).withEventTime(EventTime.defaults()));
    long now = clock.millis();
    assertThat(counter.addAll(List.of("x", "y", "x"), 2, now - 500)).containsExactly(2L, 2L, 4L);
    assertThat(counter.addAllAsync(List.of("y"), 1, now - 850).toCompletableFuture().join())
        .containsExactly(3L);
    assertThatThrownBy(() -> counter.addAll(List.of("x", "y"), 1, now - 901))
        .isInstanceOf(EventTimeException.class);
    assertThat(counter.countAll(List.of("x", "y"))).containsExactly(4L, 3L);
  }

  @Test
  void stats_outOfOrderStream_summariseAsHadItArrivedInOrder() {
    int seed = 0;
    for (StatsSpec shape : List.of(StatsSpec.histogram(SECOND, 10), StatsSpec.exact(SECOND))) {
      seed++;
      Random random = new Random(8_000 + seed);
      long[] starts = startInstants();
      ManualClock clock = ManualClock.at(starts[seed % starts.length]);
      Windowpane wp = engine(clock);
      StatsSpec spec = shape.withEventTime(dropping());
      WindowStats stats = wp.stats(uniqueName("event-time"), spec);
      StatsModel model = new StatsModel(spec);
      long dropped = 0;
      for (int i = 0; i < events(); i++) {
        clock.advance(random.nextInt(random.nextInt(8) == 0 ? 400 : 40));
        long now = clock.millis();
        long at = eventTime(random, now, spec.window());
        double value = Math.round(random.nextGaussian() * 1000) / 8.0;
        String where = "seed " + seed + " step " + i + " " + spec + " now " + now + " at " + at;
        if (at > now + MAX_AHEAD) {
          assertThatThrownBy(() -> stats.record("k", value, at)).as(where)
              .isInstanceOf(EventTimeException.class);
          continue;
        }
        long t = Math.min(at, now);
        if (t < EventTimeResult.earliestMillis(spec.window(), now)) {
          dropped++;
        } else {
          model.record(t, value);
        }
        stats.record("k", value, at);
        if (random.nextInt(6) == 0) {
          model.check(stats.summary("k"), now, where);
        }
      }
      model.check(stats.summary("k"), clock.millis(), "the end of seed " + seed);
      assertThat(stats.lateValuesDropped()).as("dropped, seed " + seed).isEqualTo(dropped);
    }
  }

  @Test
  void stats_lateOrAheadValue_refusedAndNothingRecorded() {
    ManualClock clock = ManualClock.at(REALISTIC + 20_000);
    Windowpane wp = engine(clock);
    for (StatsSpec spec : List.of(StatsSpec.histogram(SECOND, 10), StatsSpec.exact(SECOND))) {
      WindowStats stats = wp.stats(uniqueName("refused"), spec);
      long now = clock.millis();
      long earliest = EventTimeResult.earliestMillis(spec.window(), now);
      stats.record("k", 5, earliest);
      stats.recordAllAt("k", now - 1, 6, 7);
      assertThatThrownBy(() -> stats.record("k", 8, earliest - 1)).as(spec.toString())
          .isInstanceOf(EventTimeException.class);
      assertThatThrownBy(() -> stats.recordAllAt("k", now + 1_001, 9, 10)).as(spec.toString())
          .isInstanceOf(EventTimeException.class);
      assertThat(stats.summary("k").count()).as(spec.toString()).isEqualTo(3);
      assertThat(stats.summary("k").max()).as(spec.toString()).isEqualTo(7);
    }
  }

  @Test
  void badArguments_refusedBeforeAnything() {
    ManualClock clock = ManualClock.at(REALISTIC);
    Windowpane wp = engine(clock);
    WindowCounter counter = wp.counter(uniqueName("bad"), WindowSpec.panes(SECOND, 10));
    assertThatThrownBy(() -> counter.add("", 1, REALISTIC))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key");
    assertThatThrownBy(() -> counter.add("k", 0, REALISTIC))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("n");
    WindowStats stats = wp.stats(uniqueName("bad"), StatsSpec.histogram(SECOND, 10));
    assertThatThrownBy(() -> stats.record("k", Double.NaN, REALISTIC))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("value");
    assertThat(counter.count("k")).isZero();
    assertThat(stats.summary("k").count()).isZero();
  }
}
