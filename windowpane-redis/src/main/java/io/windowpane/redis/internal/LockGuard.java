package io.windowpane.redis.internal;

import io.windowpane.Backoff;
import io.windowpane.WindowpaneTimeoutException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;

/*
 * Design note. Lock mode runs each operation the way articles on Redis rate limiting do:
 * take a Redis lock on the logical key (wp_lock: SET NX PX semantics with a token), read the
 * time, run plain sorted-set commands, release the lock (wp_unlock, compare-token). A caller that
 * finds the lock taken retries after a jittered exponential backoff (1 ms doubling to 20 ms) until
 * its wait runs out, then fails with WindowpaneTimeoutException. Nothing blocks: attempts are
 * chained futures and the pauses run on CompletableFuture's delayed executor.
 *
 * The lock's time to live bounds how long a dead holder blocks the key; it is long beside the
 * few round trips an operation takes. It exists so that users of that design can move to
 * windowpane and measure what it costs (docs/benchmarks.md); the functions are the default.
 */
final class LockGuard {

  /** How long a holder keeps the lock if it dies mid-operation. */
  static final long LOCK_TTL_MILLIS = 5_000;

  private static final Backoff BACKOFF =
      Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(20)).withFullJitter();

  private final RedisSeam seam;
  private final RedisLockStore locks;
  private final TimeArg time;
  private final long waitNanos;
  private final long graceMillis;

  LockGuard(RedisSeam seam, RedisLockStore locks, TimeArg time, Duration wait) {
    this.seam = seam;
    this.locks = locks;
    this.time = time;
    this.waitNanos = wait.toNanos();
    String now = time.now();
    int plus = now.indexOf('+');
    this.graceMillis = plus < 0 ? 0 : Long.parseLong(now.substring(plus + 1));
  }

  /** Extra physical time to live on top of a window's, as the functions add (tests). */
  long graceMillis() {
    return graceMillis;
  }

  /**
   * Runs {@code work} with the current time while holding the lock {@code name}, and releases
   * the lock whatever the outcome.
   */
  <T> CompletableFuture<T> run(String name, LongFunction<CompletableFuture<T>> work) {
    String token = Long.toHexString(ThreadLocalRandom.current().nextLong())
        + Long.toHexString(System.nanoTime());
    return attempt(name, token, work, 0, System.nanoTime() + waitNanos);
  }

  private <T> CompletableFuture<T> attempt(String name, String token,
      LongFunction<CompletableFuture<T>> work, int retry, long deadline) {
    return locks.tryAcquire(name, token, LOCK_TTL_MILLIS).toCompletableFuture()
        .thenCompose((OptionalLong fence) -> {
          if (fence.isPresent()) {
            return holding(name, token, work);
          }
          if (System.nanoTime() - deadline >= 0) {
            return CompletableFuture.failedFuture(new WindowpaneTimeoutException(
                "lock mode: the lock of '" + name + "' stayed taken for "
                    + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms", null));
          }
          long pause = BACKOFF.delayMillis(retry, ThreadLocalRandom.current().nextDouble());
          return CompletableFuture.supplyAsync(() -> null,
                  CompletableFuture.delayedExecutor(pause, TimeUnit.MILLISECONDS))
              .thenCompose(v -> attempt(name, token, work, retry + 1, deadline));
        });
  }

  private <T> CompletableFuture<T> holding(String name, String token,
      LongFunction<CompletableFuture<T>> work) {
    CompletableFuture<T> done = now().thenCompose(work::apply);
    return done.handle((value, failure) -> null)
        .thenCompose(ignored -> locks.release(name, token).toCompletableFuture())
        .handle((released, releaseFailure) -> null)
        .thenCompose(ignored -> done);
  }

  /** The time the functions would use: the server's ({@code TIME}) or the engine's clock. */
  CompletableFuture<Long> now() {
    String now = time.now();
    if (now.isEmpty()) {
      return Calls.translated(seam.serverMillis(), "TIME");
    }
    int plus = now.indexOf('+');
    return CompletableFuture.completedFuture(
        Long.parseLong(plus < 0 ? now : now.substring(0, plus)));
  }
}
