package io.windowpane.internal.local;

import io.windowpane.MillisClock;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.EventTimeResult;
import java.util.concurrent.CompletionStage;

/** A counter on the local engine: one window per key. */
final class LocalCounterStore implements CounterStore {

  private final MillisClock clock;
  private final KeyTable table;
  private final WindowSpec spec;

  LocalCounterStore(MillisClock clock, KeyTable table, WindowSpec spec) {
    this.clock = clock;
    this.table = table;
    this.spec = spec;
  }

  @Override
  public CompletionStage<EventTimeResult> addAtAsync(String key, long n, long atMillis,
      long maxAheadMillis) {
    return Async.call(() -> addAt(key, n, atMillis, maxAheadMillis, clock.millis()));
  }

  /** An event-time add at {@code now}, read once by the caller (EventTimeResult's contract). */
  EventTimeResult addAt(String key, long n, long atMillis, long maxAheadMillis, long now) {
    EventTimeResult refused = EventTimeResult.judge(spec, now, atMillis, maxAheadMillis);
    if (refused != null) {
      return refused.verdict() == EventTimeResult.Verdict.LATE
          ? EventTimeResult.late(countAt(key, now), now) : refused;
    }
    long t = EventTimeResult.instant(now, atMillis);
    for (;;) {
      KeyState state = table.forWrite(key, now);
      long count = state.windows[0].addAt(now, t, n);
      if (state.touch(now)) {
        return count == Window.LATE ? EventTimeResult.late(countAt(key, now), now)
            : EventTimeResult.recorded(count, now);
      }
      table.forget(key, state); // retired while we wrote: redo on a fresh state
    }
  }

  @Override
  public long add(String key, long n) {
    return add(key, n, clock.millis());
  }

  /** {@link #add(String, long)} at {@code now}, read once by the caller. */
  long add(String key, long n, long now) {
    for (;;) {
      KeyState state = table.forWrite(key, now);
      long count = state.windows[0].add(now, n);
      if (state.touch(now)) {
        return count;
      }
      table.forget(key, state); // retired while we wrote: redo on a fresh state
    }
  }

  @Override
  public void record(String key, long n) {
    record(key, n, clock.millis());
  }

  /** {@link #record(String, long)} at {@code now}, read once by the caller. */
  void record(String key, long n, long now) {
    for (;;) {
      KeyState state = table.forWrite(key, now);
      state.windows[0].record(now, n);
      if (state.touch(now)) {
        return;
      }
      table.forget(key, state); // retired while we wrote: redo on a fresh state
    }
  }

  @Override
  public long count(String key) {
    return countAt(key, clock.millis());
  }

  private long countAt(String key, long now) {
    KeyState state = table.forRead(key, now);
    return state == null ? 0 : state.windows[0].count(now);
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
