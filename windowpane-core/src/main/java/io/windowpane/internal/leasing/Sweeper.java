package io.windowpane.internal.leasing;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one daemon thread of a {@link io.windowpane.Windowpane} that ends its leasing limiters'
 * expired leases: it returns their unspent permits and drops keys that went idle. Its tasks only
 * start engine calls, so one thread serves every limiter. Started on first use; closed with the
 * {@code Windowpane}.
 */
public final class Sweeper implements AutoCloseable {

  private final ScheduledThreadPoolExecutor executor;

  public Sweeper() {
    executor = new ScheduledThreadPoolExecutor(1, task -> {
      Thread t = new Thread(task, "windowpane-leasing");
      t.setDaemon(true);
      return t;
    });
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** Runs {@code task} every {@code periodMillis}; a failed run does not cancel the next. */
  ScheduledFuture<?> every(long periodMillis, Runnable task) {
    return executor.scheduleWithFixedDelay(() -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        // a failed sweep must not cancel the next one; the keys it missed are swept then
      }
    }, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
