package io.windowpane.internal.local;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.MillisClock;
import io.windowpane.Quota;
import io.windowpane.spi.LimiterStore;

/**
 * A rate limiter on the local engine: one window per limit per key. A request reserves in each
 * limit in turn (recursively, so no array is allocated), commits all of them when every one
 * fits, and cancels the ones it made on the first that does not.
 */
final class LocalLimiterStore implements LimiterStore {

  private final MillisClock clock;
  private final KeyTable table;
  private final Limit[] limits;
  private final long[] permits;

  LocalLimiterStore(MillisClock clock, KeyTable table, Quota quota) {
    this.clock = clock;
    this.table = table;
    this.limits = quota.limits().toArray(new Limit[0]);
    this.permits = new long[limits.length];
    for (int i = 0; i < limits.length; i++) {
      permits[i] = limits[i].permits();
    }
  }

  @Override
  public boolean tryConsume(String key, long n) {
    long now = clock.millis();
    for (;;) {
      KeyState state = table.forWrite(key, now);
      if (!acquire(state.windows, 0, now, n)) {
        return false;
      }
      if (state.touch(now)) {
        return true;
      }
      table.forget(key, state);
    }
  }

  @Override
  public Decision tryAcquire(String key, long n) {
    long now = clock.millis();
    for (;;) {
      KeyState state = table.forWrite(key, now);
      Window[] windows = state.windows;
      if (acquire(windows, 0, now, n)) {
        if (!state.touch(now)) {
          table.forget(key, state);
          continue;
        }
        long remaining = Long.MAX_VALUE;
        for (int i = 0; i < windows.length; i++) {
          remaining = Math.min(remaining, windows[i].remaining(now, permits[i]));
        }
        return Decision.allowed(remaining);
      }
      long remaining = Long.MAX_VALUE;
      long wait = -1;
      int by = 0;
      for (int i = 0; i < windows.length; i++) {
        remaining = Math.min(remaining, windows[i].remaining(now, permits[i]));
        long retry = windows[i].retryAfter(now, n, permits[i]);
        if (retry > wait) {
          wait = retry;
          by = i;
        }
      }
      return Decision.denied(remaining, limits[by], wait);
    }
  }

  /** Reserves in windows[i..] and commits all, or reserves nothing. */
  private boolean acquire(Window[] windows, int i, long now, long n) {
    if (i == windows.length) {
      return true;
    }
    Window window = windows[i];
    long receipt = window.reserve(now, n, permits[i]);
    if (receipt == Window.DENIED) {
      return false;
    }
    if (acquire(windows, i + 1, now, n)) {
      window.commit(now, n, receipt);
      return true;
    }
    window.cancel(now, n, receipt);
    return false;
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
