package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.spi.EventTimeResult;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The event-time rules and the lateness bound's arithmetic at awkward instants. */
class EventTimeTest {

  @Test
  void rules_defaultsAndCopies() {
    EventTime d = EventTime.defaults();
    assertThat(d.maxAheadMillis()).isEqualTo(1_000);
    assertThat(d.dropsLate()).isFalse();
    EventTime e = d.withMaxAhead(Duration.ofHours(1)).droppingLate();
    assertThat(e.maxAheadMillis()).isEqualTo(3_600_000);
    assertThat(e.dropsLate()).isTrue();
    assertThat(e.refusingLate().dropsLate()).isFalse();
    assertThat(d.withMaxAhead(Duration.ZERO).maxAheadMillis()).isZero();
    WindowSpec spec = WindowSpec.panes(Duration.ofSeconds(1), 10).withEventTime(e);
    assertThat(spec.withTopKeys().eventTime()).as("kept by withTopKeys").isEqualTo(e);
    assertThat(spec.withTopKeys().withoutTopKeys()).isEqualTo(spec);
    assertThat(spec).isNotEqualTo(WindowSpec.panes(Duration.ofSeconds(1), 10));
    assertThat(StatsSpec.histogram(Duration.ofSeconds(1), 10).withEventTime(e)
        .withRelativeAccuracy(0.02).eventTime()).isEqualTo(e);
  }

  @Test
  void rules_badArguments_nameTheArgumentAndRange() {
    EventTime d = EventTime.defaults();
    assertThatThrownBy(() -> d.withMaxAhead(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAhead")
        .hasMessageContaining("3600000");
    assertThatThrownBy(() -> d.withMaxAhead(Duration.ofHours(1).plusMillis(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAhead");
    assertThatThrownBy(() -> d.withMaxAhead(Duration.ofNanos(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole milliseconds");
    assertThatThrownBy(() -> d.withMaxAhead(null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAhead");
    assertThatThrownBy(() -> WindowSpec.log(Duration.ofSeconds(1)).withEventTime(null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rules");
  }

  @Test
  void earliest_isTheOldestPanesStart_atAwkwardInstants() {
    WindowSpec panes = WindowSpec.panes(Duration.ofSeconds(1), 10);
    assertThat(EventTimeResult.earliestMillis(panes, 1_000)).isEqualTo(100);
    assertThat(EventTimeResult.earliestMillis(panes, 1_099)).isEqualTo(100);
    assertThat(EventTimeResult.earliestMillis(panes, -1)).isEqualTo(-1_000);
    assertThat(EventTimeResult.earliestMillis(WindowSpec.log(Duration.ofSeconds(1)), 5_000))
        .isEqualTo(4_001);
    assertThat(EventTimeResult.earliestMillis(WindowSpec.weighted(Duration.ofSeconds(1)), 5_999))
        .isEqualTo(4_000);
    assertThat(EventTimeResult.earliestMillis(panes, Long.MIN_VALUE + 5))
        .isEqualTo(Long.MIN_VALUE);
    assertThat(EventTimeResult.earliestMillis(WindowSpec.log(Duration.ofSeconds(1)),
        Long.MIN_VALUE + 5)).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void judge_aheadLateOrRecorded_withoutOverflow() {
    WindowSpec panes = WindowSpec.panes(Duration.ofSeconds(1), 10);
    assertThat(EventTimeResult.judge(panes, 1_000, 2_000, 1_000)).isNull();
    assertThat(EventTimeResult.judge(panes, 1_000, 2_001, 1_000).verdict())
        .isEqualTo(EventTimeResult.Verdict.AHEAD);
    assertThat(EventTimeResult.judge(panes, 1_000, 99, 1_000).verdict())
        .isEqualTo(EventTimeResult.Verdict.LATE);
    assertThat(EventTimeResult.judge(panes, -5, Long.MAX_VALUE, 1_000).verdict())
        .as("at - now overflows").isEqualTo(EventTimeResult.Verdict.AHEAD);
    assertThat(EventTimeResult.judge(panes, Long.MAX_VALUE - 5, Long.MIN_VALUE, 0).verdict())
        .isEqualTo(EventTimeResult.Verdict.LATE);
  }
}
