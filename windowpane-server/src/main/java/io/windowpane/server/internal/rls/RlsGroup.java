package io.windowpane.server.internal.rls;

import io.windowpane.Decision;
import io.windowpane.GroupDecision;
import io.windowpane.PermitRequest;
import io.windowpane.Windowpane;
import io.windowpane.server.internal.rls.RlsService.Check;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/*
 * Design note. The descriptors of one ShouldRateLimit call are decided all or nothing: the
 * request passes only if every enforced descriptor fits, and then each one's hits are recorded;
 * if any is over, none of them keeps its hits. Built on Windowpane.tryAcquireAllOrNothing
 * (lease each descriptor's hits in a fixed order, give back what was taken at the first denial),
 * so it holds on every engine that can lease, with the same guarantees (docs/envoy.md): never a
 * request admitted in part; a concurrent request may be denied by hits a denied request held for
 * a moment (conservative); a failed give-back leaves those hits counted until they age out.
 *
 * Which descriptors take part ("enforced"): those that reach the engine (a matched rule with a
 * limiter, not unlimited, hits within the limit) and are not shadow_mode. A descriptor over its
 * limit without the engine (requests_per_unit 0, or more hits than the limit, also summed over
 * descriptors that count under the same rule and key) denies the request before any engine
 * call: the enforced ones are then not asked at all. shadow_mode descriptors cannot deny, so
 * they stay outside the group and are decided on their own as before, concurrently with it.
 *
 * A descriptor the request was denied before (not asked) is peeked afterwards for its status
 * (what its limit holds now, recording nothing): one more engine call, only for denied
 * requests of several descriptors. A descriptor over without the engine is peeked too (if its
 * rule has a limiter), for the count its near/over statistics are split at (RlsMetrics): one
 * more engine call, only for a request whose hits exceed a limit.
 *
 * An engine that cannot lease (a failover chain, for now) answers empty: each enforced
 * descriptor is then decided on its own, as before this existed, and a warning is logged once.
 */

/** Decides the checks of one request, all or nothing across the enforced ones. */
final class RlsGroup {

  private static final System.Logger LOG = System.getLogger("io.windowpane.server.rls");
  private static final AtomicBoolean WARNED = new AtomicBoolean();

  private RlsGroup() {}

  /** Decides {@code checks}; completes when every engine call has answered. */
  static CompletableFuture<Void> decide(Windowpane wp, List<Check> checks) {
    Map<String, Long> sums = new HashMap<>();
    for (Check c : checks) {
      if (c.reachesEngine() && !c.match.rule().shadow()) {
        // at most 64 descriptors of at most 2^32 hits: no overflow
        String key = c.match.rule().limiter().name() + '\u0000' + c.match.counterKey();
        c.earlierHits = sums.getOrDefault(key, 0L);
        sums.merge(key, c.hits, Long::sum);
      }
    }
    List<Check> group = new ArrayList<>();
    List<CompletableFuture<?>> pending = new ArrayList<>();
    boolean deniedAlready = false;
    for (Check c : checks) {
      boolean shadow = c.match != null && c.match.rule().shadow();
      if (c.reachesEngine() && !shadow && sums.get(c.match.rule().limiter().name() + '\u0000'
          + c.match.counterKey()) > c.match.rule().requestsPerUnit()) {
        c.overWithoutEngine = true; // these hits together could never fit
      }
      if (!c.reachesEngine()) {
        deniedAlready |= c.overWithoutEngine && !shadow;
      } else if (shadow) {
        pending.add(c.decideAlone());
      } else {
        group.add(c);
      }
    }
    if (deniedAlready) {
      group.forEach(c -> c.notAsked = true);
    } else if (!group.isEmpty()) {
      pending.add(decideGroup(wp, group));
    }
    return CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]))
        .thenCompose(v -> peekUndecided(checks));
  }

  /**
   * Reads the state of each descriptor not asked (the request was denied before it) without
   * recording anything, for its status, and the room of each one over without the engine
   * (for its statistics); an engine that cannot peek (etcd) leaves them unknown.
   */
  private static CompletableFuture<Void> peekUndecided(List<Check> checks) {
    List<CompletableFuture<?>> peeks = new ArrayList<>();
    for (Check c : checks) {
      if (c.overWithoutEngine && c.match.rule().limiter() != null) {
        // For statistics only: the denial stands without it, so a failed peek leaves the room
        // unknown instead of failing the request.
        try {
          peeks.add(c.match.rule().limiter().peekAsync(c.match.counterKey(), 1)
              .toCompletableFuture().handle((d, failure) -> {
                if (d != null) {
                  d.ifPresent(p -> c.peekedRoom = p.allowed() ? p.remaining() + 1
                      : p.remaining());
                }
                return null;
              }));
        } catch (RuntimeException e) {
          // room unknown: counted as the engine-less denial it is (RlsMetrics)
        }
      } else if (c.notAsked) {
        try {
          peeks.add(c.match.rule().limiter().peekAsync(c.match.counterKey(), c.hits)
              .toCompletableFuture().thenAccept(d -> c.decision = d.map(p -> p.allowed()
                  // allowed: its room now, these hits not counted (as for a given-back one)
                  ? Decision.allowed(p.remaining() + c.hits) : p).orElse(null)));
        } catch (RuntimeException e) {
          peeks.add(CompletableFuture.failedFuture(e));
        }
      }
    }
    return CompletableFuture.allOf(peeks.toArray(new CompletableFuture<?>[0]));
  }

  private static CompletableFuture<Void> decideGroup(Windowpane wp, List<Check> group) {
    List<PermitRequest> requests = new ArrayList<>(group.size());
    try {
      for (Check c : group) {
        requests.add(c.match.rule().limiter().request(c.match.counterKey(), c.hits));
      }
      return wp.tryAcquireAllOrNothingAsync(requests).toCompletableFuture()
          .thenCompose(result -> result.isPresent() ? apply(result.get(), group)
              : each(group));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static CompletableFuture<Void> apply(GroupDecision g, List<Check> group) {
    for (int i = 0; i < group.size(); i++) {
      Check c = group.get(i);
      Optional<Decision> d = g.decisions().get(i);
      if (d.isEmpty()) {
        c.notAsked = true;
      } else {
        c.decision = d.get();
        c.givenBack = !g.allowed() && d.get().allowed();
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  /** The engine cannot lease: each descriptor on its own. */
  private static CompletableFuture<Void> each(List<Check> group) {
    if (WARNED.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, "this engine cannot lease: the descriptors of one request are"
          + " decided each on its own, not all or nothing (docs/envoy.md)");
    }
    CompletableFuture<?>[] pending = new CompletableFuture<?>[group.size()];
    for (int i = 0; i < pending.length; i++) {
      pending[i] = group.get(i).decideAlone();
    }
    return CompletableFuture.allOf(pending);
  }
}
