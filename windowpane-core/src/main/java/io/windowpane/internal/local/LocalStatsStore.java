package io.windowpane.internal.local;

import io.windowpane.MillisClock;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.LogHistogram;
import io.windowpane.spi.EventTimeResult;
import io.windowpane.spi.StatsStore;
import java.util.concurrent.CompletionStage;

/** A statistics window on the local engine: a histogram ring or an exact log per key. */
final class LocalStatsStore implements StatsStore {

  private final MillisClock clock;
  private final KeyTable table;
  private final Summary empty;
  private final StatsSpec spec;

  LocalStatsStore(MillisClock clock, KeyTable table, StatsSpec spec) {
    this.clock = clock;
    this.table = table;
    this.spec = spec;
    this.empty = spec.isExact() ? Summary.ofValues(new double[0])
        : Summary.ofHistogram(0, 0, Double.NaN, Double.NaN, new LogHistogram(spec.buckets()));
  }

  @Override
  public void record(String key, double[] values) {
    record(key, values, clock.millis());
  }

  /** {@link #record(String, double[])} at {@code now}, read once by the caller. */
  void record(String key, double[] values, long now) {
    for (;;) {
      StatsState state = (StatsState) table.forWrite(key, now);
      state.window.record(now, values);
      if (state.touch(now)) {
        return;
      }
      table.forget(key, state); // retired while we wrote: redo on a fresh state
    }
  }

  @Override
  public void record(String key, double value) {
    record(key, value, clock.millis());
  }

  /** {@link #record(String, double)} at {@code now}, read once by the caller. */
  void record(String key, double value, long now) {
    for (;;) {
      StatsState state = (StatsState) table.forWrite(key, now);
      state.window.record(now, value);
      if (state.touch(now)) {
        return;
      }
      table.forget(key, state);
    }
  }

  @Override
  public CompletionStage<EventTimeResult> recordAtAsync(String key, double[] values,
      long atMillis, long maxAheadMillis) {
    return io.windowpane.spi.CounterStore.Async.call(
        () -> recordAt(key, values, atMillis, maxAheadMillis, clock.millis()));
  }

  /** An event-time record at {@code now}, read once by the caller. */
  EventTimeResult recordAt(String key, double[] values, long atMillis, long maxAheadMillis,
      long now) {
    EventTimeResult refused = EventTimeResult.judge(spec.window(), now, atMillis,
        maxAheadMillis);
    if (refused != null) {
      return refused;
    }
    long t = EventTimeResult.instant(now, atMillis);
    for (;;) {
      StatsState state = (StatsState) table.forWrite(key, now);
      boolean held = state.window.recordAt(now, t, values);
      if (state.touch(now)) {
        return held ? EventTimeResult.recorded(0, now) : EventTimeResult.late(0, now);
      }
      table.forget(key, state);
    }
  }

  @Override
  public Summary summary(String key) {
    long now = clock.millis();
    StatsState state = (StatsState) table.forRead(key, now);
    return state == null ? empty : state.window.summary(now);
  }

  @Override
  public boolean holdsState(String key) {
    return table.forRead(key, clock.millis()) != null;
  }

  @Override
  public void cleanUp() {
    table.sweep(clock.millis());
  }
}
