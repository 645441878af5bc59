package io.windowpane.internal.lock;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one daemon thread of a {@link io.windowpane.Windowpane} that times its locks: watchdog
 * renewals, lease expiry checks and the delays between the attempts of an async
 * {@code tryLock}. Tasks only start backend calls (which complete on the engine's own threads),
 * so one thread serves any number of leases. Started on first use; closed with the
 * {@code Windowpane}.
 */
public final class LockScheduler implements AutoCloseable {

  private final ScheduledThreadPoolExecutor executor;

  public LockScheduler() {
    executor = new ScheduledThreadPoolExecutor(1, task -> {
      Thread t = new Thread(task, "windowpane-locks");
      t.setDaemon(true);
      return t;
    });
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** Runs {@code task} after {@code delayMillis}; a failure of the task is swallowed. */
  public ScheduledFuture<?> after(long delayMillis, Runnable task) {
    return executor.schedule(guarded(task), Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
  }

  /** Runs {@code task} every {@code periodMillis} (after each run ends), first after one period. */
  public ScheduledFuture<?> every(long periodMillis, Runnable task) {
    return executor.scheduleWithFixedDelay(guarded(task), periodMillis, periodMillis,
        TimeUnit.MILLISECONDS);
  }

  private static Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        // a failed tick must not cancel the periodic task; the lease handles its own failures
      }
    };
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
