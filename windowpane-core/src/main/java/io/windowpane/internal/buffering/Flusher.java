package io.windowpane.internal.buffering;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one daemon thread of a {@link io.windowpane.Windowpane} that sends its buffering
 * counters' and statistics windows' pending events every half staleness bound. Its tasks only
 * start engine calls (async), so one thread serves every window. Started by the first buffering
 * window; closed with the {@code Windowpane} (after a last flush). Kept apart from the leasing
 * {@code Sweeper}: the two features share no state, and each stays self-contained.
 */
public final class Flusher implements AutoCloseable {

  private final ScheduledThreadPoolExecutor executor;

  public Flusher() {
    executor = new ScheduledThreadPoolExecutor(1, task -> {
      Thread t = new Thread(task, "windowpane-buffering");
      t.setDaemon(true);
      return t;
    });
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** Runs {@code task} every {@code periodMillis}; a failed run does not cancel the next. */
  ScheduledFuture<?> every(long periodMillis, Runnable task) {
    return executor.scheduleAtFixedRate(() -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        // a failed round must not cancel the next one; its keys are sent then
      }
    }, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
