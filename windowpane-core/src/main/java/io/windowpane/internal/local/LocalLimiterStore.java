package io.windowpane.internal.local;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.MillisClock;
import io.windowpane.Quota;
import io.windowpane.spi.LimiterStore;
import java.util.Optional;

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
  private final long smallestPermits;

  LocalLimiterStore(MillisClock clock, KeyTable table, Quota quota) {
    this.clock = clock;
    this.table = table;
    this.smallestPermits = quota.smallestPermits();
    this.limits = quota.limits().toArray(new Limit[0]);
    this.permits = new long[limits.length];
    for (int i = 0; i < limits.length; i++) {
      permits[i] = limits[i].permits();
    }
  }

  @Override
  public boolean tryConsume(String key, long n) {
    return tryConsume(key, n, clock.millis());
  }

  /** {@link #tryConsume(String, long)} at {@code now}, read once by the caller. */
  boolean tryConsume(String key, long n, long now) {
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
    return tryAcquire(key, n, clock.millis());
  }

  /** {@link #tryAcquire(String, long)} at {@code now}, read once by the caller. */
  Decision tryAcquire(String key, long n, long now) {
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

  /**
   * What {@link #tryAcquire} would answer now, from reads only: a key without state is answered
   * as a fresh one, and none is created. Each limit fits when its {@code retryAfter} is 0, which
   * is the check {@code reserve} makes; the remaining of an allowed answer is what the permits
   * would leave. Reads may move a window's head to now (as any read does), never a count.
   */
  @Override
  public Optional<Decision> peek(String key, long n) {
    long now = clock.millis();
    KeyState state = table.forRead(key, now);
    if (state == null) {
      return Optional.of(Decision.allowed(smallestPermits - n));
    }
    Window[] windows = state.windows;
    long remaining = Long.MAX_VALUE;
    long wait = 0;
    int by = -1;
    for (int i = 0; i < windows.length; i++) {
      remaining = Math.min(remaining, windows[i].remaining(now, permits[i]));
      long retry = windows[i].retryAfter(now, n, permits[i]);
      if (retry > 0 && (by < 0 || retry > wait)) {
        wait = retry;
        by = i;
      }
    }
    if (by < 0) {
      return Optional.of(Decision.allowed(Math.max(0, remaining - n)));
    }
    return Optional.of(Decision.denied(remaining, limits[by], wait));
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
