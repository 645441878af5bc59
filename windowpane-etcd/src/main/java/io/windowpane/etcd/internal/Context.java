package io.windowpane.etcd.internal;

import io.windowpane.MillisClock;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every store of one engine shares: the seam, the leases, the clock, the executor that
 * runs transactions' continuations and backoffs, and the settings. Thread-safe.
 */
public final class Context implements AutoCloseable {

  private static final AtomicInteger ENGINES = new AtomicInteger();

  final EtcdSeam seam;
  final Leases leases;
  final MillisClock clock;
  final String namespace;
  final long timeoutMillis;

  /** The per-call timeout. */
  public long timeoutMillis() {
    return timeoutMillis;
  }

  final int conflictRetries;
  final long backoffBaseMillis;
  final long backoffMaxMillis;
  final int maxValueBytes;
  final ScheduledExecutorService executor;

  public Context(EtcdSeam seam, MillisClock clock, String namespace, long timeoutMillis,
      long graceMillis, int conflictRetries, long backoffBaseMillis, long backoffMaxMillis,
      int maxValueBytes) {
    this.seam = seam;
    this.leases = new Leases(seam, graceMillis);
    this.clock = clock;
    this.namespace = namespace;
    this.timeoutMillis = timeoutMillis;
    this.conflictRetries = conflictRetries;
    this.backoffBaseMillis = backoffBaseMillis;
    this.backoffMaxMillis = backoffMaxMillis;
    this.maxValueBytes = maxValueBytes;
    int id = ENGINES.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(2, r -> {
      Thread t = new Thread(r, "windowpane-etcd-" + id + "-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    pool.setRemoveOnCancelPolicy(true);
    this.executor = pool;
  }

  /** A random nonce for one write attempt. */
  long nonce() {
    return ThreadLocalRandom.current().nextLong();
  }

  /**
   * Full-jitter exponential backoff before retry {@code attempt} (1, 2, ...): uniform in
   * [0, min(max, base * 2^(attempt-1))] ms.
   */
  long backoffMillis(int attempt) {
    long ceiling = Math.min(backoffMaxMillis, backoffBaseMillis << Math.min(20, attempt - 1));
    return new SplittableRandom(ThreadLocalRandom.current().nextLong()).nextLong(ceiling + 1);
  }

  void later(long millis, Runnable task) {
    if (millis <= 0) {
      executor.execute(task);
    } else {
      executor.schedule(task, millis, TimeUnit.MILLISECONDS);
    }
  }

  long deadline() {
    return System.nanoTime() + timeoutMillis * 1_000_000L;
  }

  @Override
  public void close() {
    executor.shutdownNow();
    seam.close();
  }
}
