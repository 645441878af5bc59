package io.windowpane.etcd.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/*
 * Design note: expiry through a few shared, rotating leases, never one lease per call.
 *
 * Keys must disappear from etcd by themselves some time after their last write, so a lease that
 * is kept alive forever would defeat the purpose: every key put with it would live as long as
 * the engine. Instead, per expiry class E (the store's W + r plus the configured grace, rounded
 * up to whole seconds) one lease at a time is current. It is granted with TTL E + u and used for
 * puts during its first u = max(1 s, ceil(E / 8)) seconds, then replaced by a fresh one; the old
 * lease is simply left to expire. A key put at time t with the lease granted at g (t - g < u)
 * therefore lives until g + E + u, i.e. between E and E + u after its last write: physical
 * deletion overshoots the logical expiry by at most 1/8 of it (or 1 s), and an active expiry
 * class costs one lease grant per u seconds whatever the write rate. Renewal is the rotation:
 * no keep-alive stream is needed, and a lease lost to a paused process ("requested lease not
 * found") is replaced on the spot. Answers never depend on physical deletion: the state carries
 * its logical expiry (see Doc). Lease ages are measured on System.nanoTime, not on the engine's
 * injected clock.
 */
final class Leases {

  /** etcd's largest lease TTL is about 9e9 s; stay well below. */
  static final long MAX_TTL_SECONDS = 1L << 32;

  private static final class Current {
    final long id;
    final long grantedNanos;
    final long useNanos;

    Current(long id, long grantedNanos, long useNanos) {
      this.id = id;
      this.grantedNanos = grantedNanos;
      this.useNanos = useNanos;
    }

    boolean usable(long nowNanos) {
      return nowNanos - grantedNanos < useNanos;
    }
  }

  private final EtcdSeam seam;
  private final long graceMillis;
  private final long grantTimeoutMillis;
  private final ConcurrentHashMap<Long, CompletableFuture<Current>> current =
      new ConcurrentHashMap<>();

  Leases(EtcdSeam seam, long graceMillis, long grantTimeoutMillis) {
    this.seam = seam;
    this.graceMillis = graceMillis;
    this.grantTimeoutMillis = grantTimeoutMillis;
  }

  /** The expiry class of a store whose keys expire {@code expiryMillis} after their last event. */
  long classOf(long expiryMillis) {
    long total = expiryMillis > Long.MAX_VALUE - graceMillis ? Long.MAX_VALUE
        : expiryMillis + graceMillis;
    return Math.min(MAX_TTL_SECONDS / 2, Math.max(1, (total + 999) / 1000));
  }

  /** The lease to put keys of expiry class {@code seconds} with now. */
  CompletableFuture<Long> lease(long seconds) {
    for (;;) {
      long now = System.nanoTime();
      CompletableFuture<Current> f = current.get(seconds);
      if (f != null && (!f.isDone() || (!f.isCompletedExceptionally() && f.join().usable(now)))) {
        return f.thenApply(c -> c.id);
      }
      CompletableFuture<Current> fresh = new CompletableFuture<>();
      boolean mine = f == null ? current.putIfAbsent(seconds, fresh) == null
          : current.replace(seconds, f, fresh);
      if (!mine) {
        continue;
      }
      long use = Math.max(1, (seconds + 7) / 8);
      seam.grantLease(seconds + use)
          .orTimeout(grantTimeoutMillis, java.util.concurrent.TimeUnit.MILLISECONDS)
          .whenComplete((id, e) -> { // a failed grant is replaced by the next caller
        if (e != null) {
          fresh.completeExceptionally(e);
        } else {
          fresh.complete(new Current(id, now, use * 1_000_000_000L));
        }
      });
      return fresh.thenApply(c -> c.id);
    }
  }

  /** Forgets lease {@code id} of class {@code seconds}: etcd no longer knows it. */
  void lost(long seconds, long id) {
    CompletableFuture<Current> f = current.get(seconds);
    if (f != null && f.isDone() && !f.isCompletedExceptionally() && f.join().id == id) {
      current.remove(seconds, f);
    }
  }
}
