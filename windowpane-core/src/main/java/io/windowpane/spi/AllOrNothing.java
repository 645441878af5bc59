package io.windowpane.spi;

import io.windowpane.Decision;
import io.windowpane.GroupDecision;
import io.windowpane.internal.Stages;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;

/*
 * Design note. All-or-nothing across several (limiter, key, permits) requests, on any engine
 * that can lease (LimiterStore.lease / releaseAsync), with no engine-specific code and no lock:
 *
 *   1. Requests for the same limiter and key are merged (their permits summed), so one key is
 *      leased once; the groups' members are then put in one fixed order, limiter name then key.
 *   2. Each member is leased in that order, lease(key, n, n): all n or nothing, recorded at the
 *      engine's time t exactly like tryAcquire(key, n) at t.
 *   3. On the first denial, every grant already taken is released (releaseAsync with the
 *      grant's atMillis and an id unique to this group and member, so a retried release is a
 *      no-op), the releases are awaited, and the group answers that member's denial.
 *   4. When every member was granted, the group is allowed with the smallest remaining.
 *
 * Guarantees. A group is never admitted in part: either every member's permits are recorded,
 * or each grant taken is given back. It is not a transaction: between a member's grant and its
 * release (one engine round trip per member taken, plus the release) other callers see those
 * permits as used, so a concurrent caller may be denied by permits that are then given back.
 * That errs towards denying, never towards admitting more than the limits. A release that fails
 * (backend down, timeout) is logged and leaves those permits counted until they age out of the
 * window: conservative again. The fixed order makes two groups that share keys meet on their
 * first shared key, so they do not keep taking one key each and denying each other.
 *
 * Why not one atomic script across keys: on Redis Cluster the keys of two limiters live in
 * different slots (each limiter's keys share a hash tag, not the group's), and etcd's
 * transactions would need every key's layout in one compare; the lease primitive is the one
 * thing every engine offers atomically per key. A group of one member is a plain tryAcquire, on
 * every engine, leasing or not.
 *
 * An engine that cannot lease answers empty at the first member: the group answers empty, with
 * nothing recorded (a later member answering empty gives back the grants before it first).
 */

/**
 * The engine-neutral algorithm behind {@code Windowpane.tryAcquireAllOrNothing}: the default of
 * {@link Engine#tryAcquireAllOrNothingAsync}, and what an engine that decides some groups in one
 * atomic backend call answers for the others (the Redis engine for keys in several Cluster
 * slots), so every group gets the same answer either way. It needs only
 * {@link LimiterStore#leaseAsync} and {@link LimiterStore#releaseAsync}.
 */
public final class AllOrNothing {

  private static final System.Logger LOG = System.getLogger("io.windowpane.allornothing");

  /** Requests for one limiter and key, merged. */
  private static final class Slot {
    final GroupRequest first;
    final List<Integer> indexes = new ArrayList<>(1);
    long permits;
    Grant grant; // the lease taken, while it is held
    Decision decision; // this slot's own answer

    Slot(GroupRequest first) {
      this.first = first;
    }
  }

  private AllOrNothing() {}

  /**
   * Merges {@code requests}, checks each merged sum against its limiter's smallest limit (an
   * {@link IllegalArgumentException} naming both requests, before any engine call), then decides
   * them all or nothing. Completes empty when the engine cannot lease (nothing recorded).
   */
  public static CompletableFuture<Optional<GroupDecision>> acquire(List<GroupRequest> requests) {
    Map<String, Slot> merged = new LinkedHashMap<>();
    for (int i = 0; i < requests.size(); i++) {
      GroupRequest m = requests.get(i);
      Slot slot = merged.computeIfAbsent(m.limiter() + '\u0000' + m.key(), k -> new Slot(m));
      long sum = slot.permits + m.permits(); // two longs >= 0: an overflow shows as < 0
      if (sum < 0 || sum > m.maxPermits()) {
        int first = slot.indexes.isEmpty() ? i : slot.indexes.get(0);
        throw new IllegalArgumentException("requests[" + first + "] and requests[" + i
            + "] ask limiter '" + m.limiter() + "' for key '" + m.key() + "' together: "
            + "their permits must sum to at most " + m.maxPermits() + " (its smallest limit), was "
            + (sum < 0 ? "more than " + Long.MAX_VALUE : Long.toString(sum)));
      }
      slot.permits = sum;
      slot.indexes.add(i);
    }
    Slot[] slots = merged.values().toArray(new Slot[0]);
    Arrays.sort(slots, Comparator.<Slot, String>comparing(s -> s.first.limiter())
        .thenComparing(s -> s.first.key()));
    if (slots.length == 1) {
      Slot only = slots[0];
      return Stages.call(() -> only.first.store().tryAcquireAsync(only.first.key(), only.permits))
          .thenApply(d -> {
            only.decision = d;
            return Optional.of(outcome(slots, requests.size(), d.allowed() ? -1 : 0, d));
          });
    }
    String group = "aon:" + Long.toHexString(ThreadLocalRandom.current().nextLong())
        + Long.toHexString(ThreadLocalRandom.current().nextLong());
    return lease(slots, 0, group, requests.size());
  }

  /** Leases {@code slots[i]} and, if granted, the rest; gives back on a denial or a failure. */
  private static CompletableFuture<Optional<GroupDecision>> lease(Slot[] slots, int i, String group,
      int size) {
    if (i == slots.length) {
      long smallest = Long.MAX_VALUE;
      for (Slot s : slots) {
        smallest = Math.min(smallest, s.decision.remaining());
      }
      return CompletableFuture.completedFuture(
          Optional.of(outcome(slots, size, -1, Decision.allowed(smallest))));
    }
    Slot slot = slots[i];
    return Stages.call(() -> slot.first.store().leaseAsync(slot.first.key(), slot.permits, slot.permits))
        .handle((granted, failure) -> {
          if (failure != null) {
            return release(slots, i, group).thenCompose(v -> CompletableFuture
                .<Optional<GroupDecision>>failedFuture(unwrap(failure)));
          }
          if (granted.isEmpty()) {
            return release(slots, i, group).thenApply(v -> Optional.<GroupDecision>empty());
          }
          Grant g = granted.get();
          if (g.permits() == slot.permits) {
            slot.grant = g;
            slot.decision = g.decision();
            return lease(slots, i + 1, group, size);
          }
          if (g.permits() > 0) { // an engine breaking lease(key, n, n): give it back too
            slot.grant = g;
            return release(slots, i + 1, group).thenCompose(v -> CompletableFuture
                .<Optional<GroupDecision>>failedFuture(new IllegalStateException("lease(" + slot.permits
                    + ", " + slot.permits + ") granted " + g.permits())));
          }
          Decision denial = g.decision();
          return release(slots, i, group)
              .thenApply(v -> Optional.of(outcome(slots, size, i, denial)));
        })
        .thenCompose(stage -> stage);
  }

  /** Gives back the grants of {@code slots[0..end)}; completes when all have answered. */
  private static CompletableFuture<Void> release(Slot[] slots, int end, String group) {
    if (end == 0) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<?>[] pending = new CompletableFuture<?>[end];
    for (int j = 0; j < end; j++) {
      Slot s = slots[j];
      Grant g = s.grant;
      String id = group + ":" + j;
      pending[j] = Stages.call(() -> s.first.store().releaseAsync(s.first.key(), g.permits(), g,
          id))
          .handle((v, failure) -> {
            if (failure != null) {
              LOG.log(Level.WARNING, "all-or-nothing: could not give back " + g.permits()
                  + " permits of '" + s.first.key() + "' on " + s.first.limiter()
                  + "; they stay counted until they leave the window", unwrap(failure));
            }
            return null;
          });
    }
    return CompletableFuture.allOf(pending);
  }

  /**
   * The outcome: every slot's decision to its requests' indexes. {@code denied} is the slot
   * that denied (-1: allowed); slots before it had room (their grant given back), after it were
   * not asked.
   */
  private static GroupDecision outcome(Slot[] slots, int size, int denied, Decision group) {
    List<Optional<Decision>> decisions = new ArrayList<>(size);
    for (int k = 0; k < size; k++) {
      decisions.add(Optional.empty());
    }
    for (int j = 0; j < slots.length; j++) {
      Slot s = slots[j];
      Decision d;
      if (denied < 0) {
        d = s.decision;
      } else if (j < denied) {
        long room = s.decision.remaining() + s.permits;
        d = Decision.allowed(room < 0 ? Long.MAX_VALUE : room);
      } else if (j == denied) {
        d = group;
      } else {
        continue;
      }
      for (int index : s.indexes) {
        decisions.set(index, Optional.of(d));
      }
    }
    return GroupDecision.of(group, denied < 0 ? -1 : slots[denied].indexes.get(0), decisions);
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
  }
}
