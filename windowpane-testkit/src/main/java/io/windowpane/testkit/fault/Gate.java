package io.windowpane.testkit.fault;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/** The proxy's fault mode, and where pumps wait until they may forward a chunk. */
final class Gate {

  /*
   * Every pump, having read a chunk (or end of stream), asks the gate when it may forward it. The
   * answer depends only on the mode at the time of asking and on when the chunk became forwardable,
   * so one lock and one condition are enough: a mode change or a stop signals all waiters and each
   * re-evaluates its own case. There is no polling; a pump held by a black hole waits on the
   * condition with no timeout, a pump serving a latency waits with the remaining nanoseconds.
   *
   * Invariants: latencyNanos is 0 unless mode is LATENCY; once closed, every wait returns false at
   * once. The latency clock of a chunk starts when it was read, or when a black hole let it go,
   * whichever is later, so data held back by a black hole gets the latency in force when released.
   */

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private FaultProxy.Mode mode = FaultProxy.Mode.PASS;
  private long latencyNanos;
  private boolean closed;

  FaultProxy.Mode mode() {
    lock.lock();
    try {
      return mode;
    } finally {
      lock.unlock();
    }
  }

  void set(FaultProxy.Mode newMode, Duration latency) {
    lock.lock();
    try {
      mode = newMode;
      latencyNanos = newMode == FaultProxy.Mode.LATENCY ? latency.toNanos() : 0;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Wakes every waiter so it re-checks its own stop condition (a link being aborted). */
  void wakeAll() {
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Makes every current and future wait return {@code false}. */
  void close() {
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until a chunk read at {@code readNanos} ({@link System#nanoTime()}) may be forwarded:
   * at once in {@code PASS}, {@code latency} after it became forwardable in {@code LATENCY}, never
   * while {@code BLACK_HOLE} lasts.
   *
   * @return {@code true} to forward it, {@code false} if the gate closed or {@code stopped} turned
   *     true (checked whenever {@link #wakeAll()} is called)
   */
  boolean awaitForwarding(long readNanos, BooleanSupplier stopped) throws InterruptedException {
    long since = readNanos;
    lock.lock();
    try {
      while (true) {
        if (closed || stopped.getAsBoolean()) {
          return false;
        }
        if (mode == FaultProxy.Mode.BLACK_HOLE) {
          changed.await();
          since = System.nanoTime(); // held back: the latency, if any, counts from the release
        } else if (mode == FaultProxy.Mode.LATENCY) {
          long remaining = latencyNanos - (System.nanoTime() - since); // overflow-safe
          if (remaining <= 0) {
            return true;
          }
          changed.awaitNanos(remaining);
        } else {
          return true;
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Waits while the black hole lasts; {@code false} if the gate closed or {@code stopped}. */
  boolean awaitOpen(BooleanSupplier stopped) throws InterruptedException {
    lock.lock();
    try {
      while (!closed && !stopped.getAsBoolean() && mode == FaultProxy.Mode.BLACK_HOLE) {
        changed.await();
      }
      return !closed && !stopped.getAsBoolean();
    } finally {
      lock.unlock();
    }
  }
}
