package io.windowpane.etcd.internal;

import io.windowpane.MillisClock;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

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
  /** Staleness bound of cached counts; 0: counts always read etcd. */
  final long cacheStalenessMillis;
  final ScheduledExecutorService executor;
  final LongAdder operations = new LongAdder();
  final LongAdder transactions = new LongAdder();
  final LongAdder conflicts = new LongAdder();
  final LongAdder exhausted = new LongAdder();
  final LongAdder lostAnswers = new LongAdder();

  /** etcd's default {@code --max-txn-ops}: the most compares, or puts, or reads in one txn. */
  public static final int DEFAULT_MAX_TXN_OPS = 128;

  /** The most keys one multi-key transaction touches (see ReplayChunk). */
  final int maxTxnOps;

  /** A context whose multi-key transactions stay within etcd's default {@code --max-txn-ops}. */
  public Context(EtcdSeam seam, MillisClock clock, String namespace, long timeoutMillis,
      long graceMillis, int conflictRetries, long backoffBaseMillis, long backoffMaxMillis,
      int maxValueBytes, long cacheStalenessMillis) {
    this(seam, clock, namespace, timeoutMillis, graceMillis, conflictRetries, backoffBaseMillis,
        backoffMaxMillis, maxValueBytes, cacheStalenessMillis, DEFAULT_MAX_TXN_OPS);
  }

  public Context(EtcdSeam seam, MillisClock clock, String namespace, long timeoutMillis,
      long graceMillis, int conflictRetries, long backoffBaseMillis, long backoffMaxMillis,
      int maxValueBytes, long cacheStalenessMillis, int maxTxnOps) {
    this.seam = seam;
    this.maxTxnOps = maxTxnOps;
    this.clock = clock;
    this.namespace = namespace;
    this.timeoutMillis = timeoutMillis;
    this.conflictRetries = conflictRetries;
    this.backoffBaseMillis = backoffBaseMillis;
    this.backoffMaxMillis = backoffMaxMillis;
    this.maxValueBytes = maxValueBytes;
    this.cacheStalenessMillis = cacheStalenessMillis;
    this.leases = new Leases(seam, graceMillis, callTimeoutMillis());
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

  /** operations, transactions, conflicts, exhausted, lostAnswers. */
  public long[] counts() {
    return new long[] {operations.sum(), transactions.sum(), conflicts.sum(), exhausted.sum(),
        lostAnswers.sum()};
  }

  /** A random nonce for one write attempt. */
  long nonce() {
    return ThreadLocalRandom.current().nextLong();
  }

  /**
   * Full-jitter exponential backoff (microseconds) before retry {@code attempt} (1, 2, ...) of a
   * call that failed: uniform in [0, min(max, base * 2^(attempt-1))].
   */
  long failureBackoffMicros(int attempt) {
    long ceiling = Math.min(backoffMaxMillis, backoffBaseMillis << Math.min(20, attempt - 1));
    return ThreadLocalRandom.current().nextLong(ceiling * 1000 + 1);
  }

  /**
   * The jittered pause (microseconds) of a lane on a contended key before its next transaction,
   * having lost {@code conflicts} compares in a row (0 for a lane that just won): uniform in
   * [0, base / (1 + conflicts)]. Winners wait as long as losers, so the last writer does not
   * keep the key; the longer a lane has lost, the sooner it goes, so nobody starves.
   */
  long contentionPauseMicros(int conflicts) {
    return ThreadLocalRandom.current().nextLong(backoffBaseMillis * 1000 / (1 + conflicts) + 1);
  }

  void later(long micros, Runnable task) {
    if (micros <= 0) {
      executor.execute(task);
    } else {
      executor.schedule(task, micros, TimeUnit.MICROSECONDS);
    }
  }

  /**
   * How long one call to etcd may take before it counts as lost and is retried: a third of the
   * operation's timeout (at least 50 ms), so a call stuck on a dead member leaves time to retry
   * on another.
   */
  long callTimeoutMillis() {
    return Math.max(50, timeoutMillis / 3);
  }

  /** {@code call} failing with a TimeoutException after {@link #callTimeoutMillis()}. */
  <T> java.util.concurrent.CompletableFuture<T> bounded(
      java.util.concurrent.CompletableFuture<T> call) {
    return call.orTimeout(callTimeoutMillis(), TimeUnit.MILLISECONDS);
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
