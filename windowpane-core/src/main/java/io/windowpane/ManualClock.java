package io.windowpane;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told to: for tests, simulations and replay.
 *
 * <p>Thread-safe. Negative instants and instants near {@link Long#MAX_VALUE} are allowed, so a
 * test can start at awkward times; {@link #advance} refuses to overflow.
 */
public final class ManualClock implements MillisClock {

  private final AtomicLong now;

  private ManualClock(long startMillis) {
    this.now = new AtomicLong(startMillis);
  }

  /** A clock that reads {@code startMillis} until moved. */
  public static ManualClock at(long startMillis) {
    return new ManualClock(startMillis);
  }

  @Override
  public long millis() {
    return now.get();
  }

  /** Sets the time; it may go backwards. */
  public void set(long millis) {
    now.set(millis);
  }

  /** Moves the time forward by {@code millis} (which must be {@code >= 0}) and returns the new time. */
  public long advance(long millis) {
    if (millis < 0) {
      throw new IllegalArgumentException("millis must be >= 0, was " + millis);
    }
    return now.updateAndGet(t -> Math.addExact(t, millis));
  }

  /** Moves the time forward by {@code step} and returns the new time. */
  public long advance(Duration step) {
    return advance(step.toMillis());
  }

  @Override
  public String toString() {
    return "ManualClock[" + now.get() + "]";
  }
}
