package io.windowpane.internal.leasing;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/*
 * A key's leasing state on this node: its current slice, and the token of whoever may replace it.
 *
 * Requests spend from `slice` without any lock. Replacing the slice (closing it, returning its
 * unspent permits, asking for the next one) and retiring the key take the token first: a
 * compare-and-swap of `renewal` from null to a future that completes when the holder is done, on
 * which other requests for the key wait instead of calling the engine themselves (one lease call
 * in flight per key). The holder writes `slice` before it clears the token, so a request that
 * saw the token cleared sees the new slice. A retired entry has left the table; a request that
 * still holds it finds its slice closed and looks the key up again.
 */
final class KeyLease {

  volatile Slice slice = Slice.NONE;
  final AtomicReference<CompletableFuture<Void>> renewal = new AtomicReference<>();
  volatile boolean retired;
  // the permits this node asked the engine for with plain decisions since streakStart (this
  // node's clock), before the key leases; written and read only by the token's holder
  long streakStart = Long.MIN_VALUE;
  long streak;

  /** Takes the token; null when another holder has it. */
  CompletableFuture<Void> claim() {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    return renewal.compareAndSet(null, mine) ? mine : null;
  }

  /** Gives the token back and wakes whoever waits on it. */
  void unclaim(CompletableFuture<Void> mine) {
    renewal.set(null);
    mine.complete(null);
  }
}
