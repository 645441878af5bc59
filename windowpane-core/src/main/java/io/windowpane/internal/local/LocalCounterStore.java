package io.windowpane.internal.local;

import io.windowpane.MillisClock;
import io.windowpane.spi.CounterStore;

/** A counter on the local engine: one window per key. */
final class LocalCounterStore implements CounterStore {

  private final MillisClock clock;
  private final KeyTable table;

  LocalCounterStore(MillisClock clock, KeyTable table) {
    this.clock = clock;
    this.table = table;
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
    long now = clock.millis();
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
