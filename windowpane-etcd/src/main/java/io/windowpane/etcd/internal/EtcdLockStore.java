package io.windowpane.etcd.internal;

import io.windowpane.MillisClock;
import io.windowpane.WindowpaneException;
import io.windowpane.WindowpaneTimeoutException;
import io.windowpane.spi.LockStore;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/*
 * Design note. A lock is one etcd key, <namespace>/lock/<name>, whose value names the holder's
 * token and when it took or last renewed the lock by the engine's clock (LockValue). Each call
 * reads the key (a linearizable read), decides in Java with one reading of the engine's clock,
 * and writes with a transaction that compares the key's mod revision to the one read:
 *
 *   tryAcquire: free (absent, or its holder's ttl passed)  ->  If(mod == r) Then(Put) Else(Get)
 *   renew:      held by token                               ->  If(mod == r) Then(Put) Else(Get)
 *   release:    held by token                               ->  If(mod == r) Then(Delete) Else(Get)
 *
 * A lost compare means another client wrote in between; the Else branch's read is decided again.
 * A held lock costs a polling waiter one read and no raft write.
 *
 * Fencing token: the etcd revision of the write that took the lock, i.e. the key's create
 * revision when the lock was free (absent), its mod revision when a holder whose ttl passed is
 * taken over (etcd refuses a delete and a put of one key in one transaction, so a take-over is a
 * put on the existing key). etcd revisions are one counter for the whole cluster, raised by every
 * committed write and never reused, also across leader changes; each take is a write after the
 * previous holder's write, so tokens strictly increase per lock. They go back only if etcd is
 * restored from an older backup.
 *
 * Why expiry is logical and not the etcd lease. Leases are whole seconds, expire by the leader's
 * clock (checked every 500 ms, and extended on a leader change), and cannot follow the engine's
 * clock, which every other answer of this engine follows (client time; a ManualClock in tests).
 * So a holder holds while clock - takenAt < ttl, exactly as the Redis store's hash; the key is
 * put with the engine's shared rotating lease of the class ttl + expiryGrace (Leases), which
 * deletes an abandoned key some time after its logical expiry: no lease per lock, no grant or
 * revoke per call, no keep-alive stream. The price is client time: under a skew d between
 * clients, a client ahead sees a lock expire up to d early. Fencing tokens do not depend on it.
 *
 * Lost answers. A failed call is retried from a fresh read while the engine's timeout allows.
 * tryAcquire and renew are recognised by the token in the value (a take that landed reads as
 * held by our token: its revision is the fencing token). A release whose delete may have landed
 * counts as done if the key no longer holds our token while our ttl has not passed: only the
 * holder deletes a live lock.
 *
 * Waiting is core's polling with backoff (DistributedLock): the SPI has no wake-up, and with
 * logical expiry there is often no etcd event at the moment a lock becomes free, so a queue of
 * waiters watching their predecessor's key (etcd's concurrency.Mutex) would still need the poll.
 */

/**
 * Distributed locks on etcd: one key per lock, compare-and-swap on its mod revision. Thread-safe
 * and stateless per lock; calls never block (they complete on jetcd's or the engine's threads)
 * and fail with {@link WindowpaneException}, or {@link WindowpaneTimeoutException} once the
 * engine's timeout passes, retries included.
 */
public final class EtcdLockStore implements LockStore {

  private final Context ctx;
  private final String prefix;

  public EtcdLockStore(Context ctx) {
    this.ctx = ctx;
    this.prefix = ctx.namespace + "/lock/";
  }

  private byte[] key(String name) {
    return (prefix + name).getBytes(StandardCharsets.UTF_8);
  }

  /** The engine's clock: lock expiry is by the time calls carry, as for every other key. */
  @Override
  public MillisClock clock() {
    return ctx.clock;
  }

  @Override
  public CompletionStage<OptionalLong> tryAcquire(String name, String token, long ttlMillis) {
    long now = ctx.clock.millis();
    byte[] key = key(name);
    LockValue mine = new LockValue(now, ttlMillis, token);
    long leaseClass = ctx.leases.classOf(ttlMillis);
    return retried("tryLock", name, () -> read(key).thenCompose(
        s -> acquireFrom(s, key, name, mine, leaseClass)));
  }

  private CompletableFuture<OptionalLong> acquireFrom(Snapshot s, byte[] key, String name,
      LockValue mine, long leaseClass) {
    LockValue holder = LockValue.decode(s.value, name);
    if (holder != null && holder.heldAt(mine.takenAt)) {
      return CompletableFuture.completedFuture(holder.token.equals(mine.token)
          ? OptionalLong.of(s.modRevision) // an earlier attempt of this call landed
          : OptionalLong.empty());
    }
    return put(key, s.modRevision, mine, leaseClass).thenCompose(r -> r.succeeded
        ? CompletableFuture.completedFuture(OptionalLong.of(r.modRevision))
        : acquireFrom(r, key, name, mine, leaseClass));
  }

  @Override
  public CompletionStage<Boolean> renew(String name, String token, long ttlMillis) {
    long now = ctx.clock.millis();
    byte[] key = key(name);
    LockValue mine = new LockValue(now, ttlMillis, token);
    long leaseClass = ctx.leases.classOf(ttlMillis);
    return retried("renew lock", name, () -> read(key).thenCompose(
        s -> renewFrom(s, key, name, mine, leaseClass)));
  }

  private CompletableFuture<Boolean> renewFrom(Snapshot s, byte[] key, String name,
      LockValue mine, long leaseClass) {
    LockValue holder = LockValue.decode(s.value, name);
    if (holder == null || !holder.heldBy(mine.token, mine.takenAt)) {
      return CompletableFuture.completedFuture(false);
    }
    return put(key, s.modRevision, mine, leaseClass).thenCompose(r -> r.succeeded
        ? CompletableFuture.completedFuture(true) : renewFrom(r, key, name, mine, leaseClass));
  }

  @Override
  public CompletionStage<Boolean> release(String name, String token) {
    long now = ctx.clock.millis();
    byte[] key = key(name);
    LockValue[] tried = {null}; // our holding when a delete was sent whose answer may be lost
    return retried("release lock", name, () -> read(key).thenCompose(
        s -> releaseFrom(s, key, name, token, now, tried)));
  }

  private CompletableFuture<Boolean> releaseFrom(Snapshot s, byte[] key, String name,
      String token, long now, LockValue[] tried) {
    LockValue holder = LockValue.decode(s.value, name);
    if (holder == null || !holder.heldBy(token, now)) {
      // only the holder deletes a live lock: if ours had not expired, the lost delete landed
      return CompletableFuture.completedFuture(
          tried[0] != null && tried[0].heldAt(ctx.clock.millis()));
    }
    tried[0] = holder;
    return ctx.bounded(ctx.seam.compareAndDelete(key, s.modRevision)).thenCompose(r -> {
      if (r.succeeded) {
        return CompletableFuture.completedFuture(true);
      }
      tried[0] = null; // answered: it did not land
      return releaseFrom(r, key, name, token, now, tried);
    });
  }

  private CompletableFuture<Snapshot> read(byte[] key) {
    return ctx.bounded(ctx.seam.get(key));
  }

  /** Compare-and-put of {@code value} with the current lease of {@code leaseClass}. */
  private CompletableFuture<Snapshot> put(byte[] key, long modRevision, LockValue value,
      long leaseClass) {
    return ctx.bounded(ctx.leases.lease(leaseClass)).thenCompose(lease ->
        ctx.bounded(ctx.seam.compareAndPut(key, modRevision, value.encode(), lease))
            .whenComplete((r, e) -> {
              if (kind(e) == SeamException.Kind.LEASE_GONE) {
                ctx.leases.lost(leaseClass, lease);
              }
            }));
  }

  /**
   * Runs {@code attempt} until it answers, retrying a failed one (timeout, lost connection,
   * leader change, lease gone) from a fresh read after the engine's failure backoff while the
   * engine's timeout allows.
   */
  private <T> CompletableFuture<T> retried(String what, String name,
      Supplier<CompletableFuture<T>> attempt) {
    CompletableFuture<T> out = new CompletableFuture<>();
    long deadline = ctx.deadline();
    new Runnable() {
      private int failures;

      @Override
      public void run() {
        CompletableFuture<T> call;
        try {
          call = attempt.get();
        } catch (RuntimeException e) {
          call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((v, e) -> {
          if (e == null) {
            out.complete(v);
            return;
          }
          Throwable cause = unwrap(e);
          SeamException.Kind kind = kind(cause);
          failures++;
          if (cause instanceof WindowpaneException) {
            out.completeExceptionally(cause);
          } else if (kind == SeamException.Kind.REFUSED) {
            out.completeExceptionally(new WindowpaneException("etcd refused " + what + " of '"
                + name + "': " + cause.getMessage(), cause));
          } else if (System.nanoTime() - deadline >= 0) {
            out.completeExceptionally(new WindowpaneTimeoutException("etcd: no answer to " + what
                + " of '" + name + "' within " + ctx.timeoutMillis + " ms (" + failures
                + " attempts; last failure attached)", cause));
          } else {
            try {
              ctx.later(kind == SeamException.Kind.LEASE_GONE ? 0
                  : ctx.failureBackoffMicros(failures), this);
            } catch (RejectedExecutionException closed) {
              out.completeExceptionally(new WindowpaneException("etcd: " + what + " of '" + name
                  + "' failed and the engine is closed: " + cause, cause));
            }
          }
        });
      }
    }.run();
    return out;
  }

  private static Throwable unwrap(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && !(cause instanceof SeamException)
        && !(cause instanceof WindowpaneException)) {
      cause = cause.getCause();
    }
    return cause;
  }

  private static SeamException.Kind kind(Throwable e) {
    if (e == null) {
      return null;
    }
    Throwable cause = unwrap(e);
    return cause instanceof SeamException ? ((SeamException) cause).kind()
        : SeamException.Kind.TRANSIENT;
  }
}
