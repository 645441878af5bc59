package io.windowpane;

import io.windowpane.internal.lock.LockScheduler;
import io.windowpane.internal.lock.Waiting;
import io.windowpane.spi.LockStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/*
 * Design note. A lease is believed held while its validity lasts: validUntil = (the store's clock
 * read BEFORE the call that took or last renewed it) + ttl. The store started the ttl after that
 * read, so the holder's belief ends no later than the store's lock does (up to the rate at which
 * the two clocks run: the same clock in the local engine and with client time, a monotonic clock
 * against the server's in Redis). The watchdog (one task per lease on the Windowpane's single
 * lock thread) renews every ttl / 3, with at most one renewal in flight. A renewal answered false
 * (the token no longer holds the lock: it expired and may be someone else's, or the key was
 * deleted) makes the lease lost at once; a renewal that fails (timeout, connection down) is
 * retried at the next tick, and the lease is lost when its validity passes without a successful
 * renewal. Lost and released are final: a late renewal answer never revives a lease.
 *
 * States: HELD -> RELEASED (release) | LOST (expired, renewal refused); LOST -> RELEASED (a
 * release after the loss still frees the lock in the store if this token holds it there).
 * lost() completes on HELD -> LOST only; a voluntary release leaves it incomplete.
 */

/**
 * A held {@link DistributedLock}: its fencing token, whether it is still held, a signal when it
 * is lost, and its release. Thread-safe; obtained from {@code tryLock}.
 *
 * <pre>{@code
 * try (LockLease lease = lock.tryLock(Duration.ofSeconds(5)).orElseThrow()) {
 *   storage.write(record, lease.fencingToken());   // the storage rejects older tokens
 * }
 * }</pre>
 *
 * <p>What is guaranteed: {@link #isHeld()} is false from the moment the store may consider the
 * lock free (measured by the store's clock from before the call that took or renewed it). What
 * is not: that no one else holds the lock while {@code isHeld()} is true, whatever happened
 * since the last check (a process pause, a Redis failover). Pass {@link #fencingToken()} to the
 * resource you protect so that it can refuse a stale holder; see docs/locks.md.
 */
public final class LockLease implements AutoCloseable {

  private static final int HELD = 0;
  private static final int RELEASED = 1;
  private static final int LOST = 2;

  private final DistributedLock lock;
  private final LockStore store;
  private final LockScheduler scheduler;
  private final String token;
  private final long fencingToken;
  private final long ttlMillis;
  private final AtomicInteger state = new AtomicInteger(HELD);
  private final AtomicBoolean renewing = new AtomicBoolean();
  private final CompletableFuture<Void> lost = new CompletableFuture<>();
  private volatile long validUntil;
  private volatile ScheduledFuture<?> watchdog;

  LockLease(DistributedLock lock, LockStore store, LockScheduler scheduler, String token,
      long fencingToken, long takenAt) {
    this.lock = lock;
    this.store = store;
    this.scheduler = scheduler;
    this.token = token;
    this.fencingToken = fencingToken;
    this.ttlMillis = lock.options().ttlMillis();
    this.validUntil = saturatedAdd(takenAt, ttlMillis);
  }

  /** Starts the watchdog, or the expiry check of a lease without one. */
  void start() {
    if (lock.options().watchdog()) {
      watchdog = scheduler.every(Math.max(1, lock.options().renewIntervalMillis()), this::tick);
    } else {
      scheduler.after(ttlMillis, this::stillValid);
    }
  }

  /**
   * The fencing token: {@code >= 1}, greater than every token handed out before for this lock
   * name by the same backend, to any holder, also after a lease expired. Never reused.
   */
  public long fencingToken() {
    return fencingToken;
  }

  /**
   * Whether this lease still holds the lock, as far as this process can know: false once
   * released, once a renewal was refused, and once the ttl has passed since it was taken or
   * last renewed.
   */
  public boolean isHeld() {
    return stillValid() && state.get() == HELD;
  }

  /**
   * Completes when this lease is lost without being released: a renewal was refused (the lock
   * expired, or its key was deleted), or the ttl passed without a successful renewal (the
   * backend unreachable, or no watchdog). Never completes after {@link #release()}. Stop the
   * work the lock guards when it completes. Each call returns a new stage on the same event.
   */
  public CompletionStage<Void> lost() {
    stillValid();
    return lost.copy();
  }

  /**
   * Releases the lock if this lease still holds it in the backend (compare-token: never frees
   * another holder's lock); stops the watchdog. Idempotent: returns true only from the call
   * that freed the lock, false if it was already released or lost to another holder.
   *
   * @throws WindowpaneException if the backend failed; the lock then expires by its ttl
   */
  public boolean release() {
    return Waiting.await(releaseAsync());
  }

  /** {@link #release()} without blocking the caller. */
  public CompletionStage<Boolean> releaseAsync() {
    int before = state.getAndSet(RELEASED);
    if (before == RELEASED) {
      return CompletableFuture.completedFuture(false);
    }
    stopWatchdog();
    return store.release(lock.name(), token);
  }

  /** {@link #release()}, for try-with-resources. */
  @Override
  public void close() {
    release();
  }

  /** The lock this lease holds. */
  public DistributedLock lock() {
    return lock;
  }

  private void tick() {
    if (state.get() != HELD) {
      stopWatchdog();
      return;
    }
    if (!stillValid() || !renewing.compareAndSet(false, true)) {
      return;
    }
    long sentAt = store.clock().millis();
    CompletionStage<Boolean> renewal;
    try {
      renewal = store.renew(lock.name(), token, ttlMillis);
    } catch (RuntimeException e) {
      renewing.set(false);
      return;
    }
    renewal.whenComplete((renewed, failure) -> {
      renewing.set(false);
      if (failure != null) {
        // retried at the next tick; lost when the validity passes first
        scheduler.after(validUntil - store.clock().millis(), this::stillValid);
      } else if (renewed) {
        long until = saturatedAdd(sentAt, ttlMillis);
        if (until > validUntil) {
          validUntil = until; // a single renewal in flight: no lost update
        }
      } else {
        markLost();
      }
    });
  }

  /** Whether the validity lasts; marks the lease lost when it has passed. */
  private boolean stillValid() {
    if (state.get() == HELD && store.clock().millis() >= validUntil) {
      markLost();
    }
    return state.get() != LOST;
  }

  private void markLost() {
    if (state.compareAndSet(HELD, LOST)) {
      stopWatchdog();
      lost.complete(null);
    }
  }

  private void stopWatchdog() {
    ScheduledFuture<?> w = watchdog;
    if (w != null) {
      w.cancel(false);
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  @Override
  public String toString() {
    String s = state.get() == HELD ? "held" : state.get() == LOST ? "lost" : "released";
    return "LockLease[" + lock.name() + ", fencing token " + fencingToken + ", " + s + "]";
  }
}
