package io.windowpane.testkit.conformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs one task on many threads at once, for tests that check exact totals under contention. */
public final class Together {

  private Together() {}

  /**
   * Submits {@code task} {@code threads} times to {@code pool}; the copies start together at a
   * barrier. Returns the sum of their results; waits at most {@code timeout} for each.
   *
   * @throws Exception whatever a copy threw, or a timeout
   */
  public static long sum(ExecutorService pool, int threads, Duration timeout, Callable<Long> task)
      throws Exception {
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Future<Long>> futures = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      futures.add(pool.submit(() -> {
        start.await(30, TimeUnit.SECONDS);
        return task.call();
      }));
    }
    long sum = 0;
    for (Future<Long> f : futures) {
      sum += f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
    return sum;
  }
}
