package io.windowpane.internal;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One named daemon thread of a {@link io.windowpane.Windowpane} that runs short periodic tasks:
 * the leasing limiters' sweeps ({@code windowpane-leasing}: returning expired slices, dropping
 * idle keys) and the buffering windows' flushes ({@code windowpane-buffering}). Its tasks only
 * start engine calls (async), so one thread serves every limiter or window of its kind. Started
 * on first use; closed with the {@code Windowpane}.
 */
public final class Periodic implements AutoCloseable {

  private final ScheduledThreadPoolExecutor executor;

  /** A scheduler on one daemon thread named {@code threadName}. */
  public Periodic(String threadName) {
    executor = new ScheduledThreadPoolExecutor(1, task -> {
      Thread t = new Thread(task, threadName);
      t.setDaemon(true);
      return t;
    });
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /**
   * Runs {@code task} every {@code periodMillis} (at a fixed rate, so a flush round's bound
   * does not drift); a failed run does not cancel the next.
   */
  public ScheduledFuture<?> every(long periodMillis, Runnable task) {
    return executor.scheduleAtFixedRate(() -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        // a failed run must not cancel the next one; what it missed is done then
      }
    }, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
