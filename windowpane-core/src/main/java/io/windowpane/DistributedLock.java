package io.windowpane;

import io.windowpane.internal.lock.LockScheduler;
import io.windowpane.internal.lock.Waiting;
import io.windowpane.spi.Checks;
import io.windowpane.spi.LockStore;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/*
 * Design note. Every attempt is one call of the engine's LockStore with a fresh random token
 * (a UUID: unique across processes without coordination), so a lease can only ever release or
 * renew its own hold. Waiting is done here, not in the engines: attempt, and while the deadline
 * is ahead sleep the backoff's next delay (cut to the time left) and attempt again, a last time
 * at the deadline. Polling with jittered backoff rather than a wake-up from the backend (pub/sub,
 * watch) keeps the store to three calls that every backend can make atomic; the cost is up to
 * one backoff delay of latency after a release. An attempt that fails (timeout) may have taken
 * the lock in the backend before failing: its token is released at once, best effort, so the
 * lock is not left taken for a whole ttl by nobody.
 *
 * Deadlines are measured by System.nanoTime (the caller really waits); lease validity by the
 * store's clock (the backend's expiry).
 */

/**
 * A named lock shared by every process using the same engine and backend: at most one
 * {@link LockLease} holds it at a time, until released, or until its ttl passes without renewal.
 * Not reentrant: a second {@code tryLock} while a lease holds it fails, from any thread. Obtained
 * from {@link Windowpane#lock}. Thread-safe.
 *
 * <pre>{@code
 * DistributedLock lock = wp.lock("nightly-report", LockOptions.defaults());
 * Optional<LockLease> lease = lock.tryLock(Duration.ofSeconds(5));
 * if (lease.isPresent()) {
 *   try (LockLease held = lease.get()) {
 *     report.write(held.fencingToken());
 *   }
 * }
 * }</pre>
 *
 * <p>Not acquiring is a normal return (an empty {@code Optional}), never an exception. Bad
 * arguments throw {@link IllegalArgumentException} at once, also from the async forms; backend
 * failures throw (or complete the stage with) a {@link WindowpaneException}. What a lock does and
 * does not guarantee, and why you should pass the fencing token on: docs/locks.md.
 */
public final class DistributedLock {

  /** The longest a {@code tryLock} may wait: 1 day. */
  public static final long MAX_WAIT_MILLIS = 86_400_000;

  private final String name;
  private final LockOptions options;
  private final LockStore store;
  private final LockScheduler scheduler;

  DistributedLock(String name, LockOptions options, LockStore store, LockScheduler scheduler) {
    this.name = name;
    this.options = options;
    this.store = store;
    this.scheduler = scheduler;
  }

  /** One attempt: a lease if the lock was free, else empty. */
  public Optional<LockLease> tryLock() {
    return Waiting.await(attempt());
  }

  /**
   * Attempts until the lock is taken or {@code wait} (0 to 1 day) has passed, sleeping the
   * options' backoff between attempts; the last attempt is made at the deadline.
   *
   * @throws InterruptedException if interrupted while waiting between attempts (no lease is
   *     held then)
   */
  public Optional<LockLease> tryLock(Duration wait) throws InterruptedException {
    long deadline = deadline(wait);
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    for (int retry = 0; ; retry++) {
      Optional<LockLease> lease = tryLock();
      long left = deadline - System.nanoTime();
      if (lease.isPresent() || left <= 0) {
        return lease;
      }
      TimeUnit.NANOSECONDS.sleep(Math.min(delayNanos(retry), left));
    }
  }

  /** {@link #tryLock()} without blocking the caller. */
  public CompletionStage<Optional<LockLease>> tryLockAsync() {
    return attempt();
  }

  /**
   * {@link #tryLock(Duration)} without blocking the caller: the delays between attempts are
   * timed on the engine's lock thread. Cancelling the returned stage stops the attempts; a lease
   * taken meanwhile is released.
   */
  public CompletionStage<Optional<LockLease>> tryLockAsync(Duration wait) {
    long deadline = deadline(wait);
    CompletableFuture<Optional<LockLease>> result = new CompletableFuture<>();
    attemptUntil(deadline, 0, result);
    return result;
  }

  private void attemptUntil(long deadline, int retry,
      CompletableFuture<Optional<LockLease>> result) {
    attempt().whenComplete((lease, failure) -> {
      if (failure != null) {
        result.completeExceptionally(Waiting.unchecked(failure));
        return;
      }
      if (lease.isPresent()) {
        if (!result.complete(lease)) {
          lease.get().releaseAsync(); // cancelled meanwhile
        }
        return;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || result.isDone()) {
        result.complete(Optional.empty());
        return;
      }
      long delayMillis = TimeUnit.NANOSECONDS.toMillis(Math.min(delayNanos(retry), left));
      try {
        scheduler.after(delayMillis, () -> attemptUntil(deadline, retry + 1, result));
      } catch (RuntimeException e) { // the Windowpane was closed
        result.completeExceptionally(e);
      }
    });
  }

  /** One call of the store with a fresh token. */
  private CompletableFuture<Optional<LockLease>> attempt() {
    String token = UUID.randomUUID().toString();
    long takenAt = store.clock().millis(); // before the call: see LockLease
    CompletionStage<OptionalLong> call;
    try {
      call = store.tryAcquire(name, token, options.ttlMillis());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return call.toCompletableFuture().handle((fence, failure) -> {
      if (failure != null) {
        forget(token);
        throw Waiting.unchecked(failure);
      }
      if (fence.isEmpty()) {
        return Optional.empty();
      }
      LockLease lease = new LockLease(this, store, scheduler, token, fence.getAsLong(), takenAt);
      try {
        lease.start();
      } catch (RuntimeException e) { // the Windowpane was closed
        forget(token);
        throw e;
      }
      return Optional.of(lease);
    });
  }

  /** Releases {@code token}'s hold, if it has one, without waiting for the answer. */
  private void forget(String token) {
    try {
      store.release(name, token);
    } catch (RuntimeException ignored) {
      // best effort: the ttl frees the lock anyway
    }
  }

  private long delayNanos(int retry) {
    return TimeUnit.MILLISECONDS.toNanos(options.backoff().delayMillis(retry,
        ThreadLocalRandom.current().nextDouble()));
  }

  private static long deadline(Duration wait) {
    long millis = Checks.millis("wait", wait, 0, MAX_WAIT_MILLIS);
    return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
  }

  /** The lock's name: the same name on the same backend is the same lock. */
  public String name() {
    return name;
  }

  /** Its options. */
  public LockOptions options() {
    return options;
  }

  @Override
  public String toString() {
    return "DistributedLock[" + name + ", " + options + "]";
  }
}
