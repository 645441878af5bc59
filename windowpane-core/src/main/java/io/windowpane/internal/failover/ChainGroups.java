package io.windowpane.internal.failover;

import io.windowpane.Decision;
import io.windowpane.GroupDecision;
import io.windowpane.spi.GroupRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/*
 * All-or-nothing groups through a chain: the whole group is decided on one member, never split.
 *
 * The group goes where a write would go (Chain.route from the first member): each request is
 * mapped to that member's store of its limiter, and the member's engine decides the group by
 * its own means (one atomic call where it has one, else ordered leases given back at the first
 * denial). A member that fails or times out counts against its breaker like any call, gives
 * back what it had granted of the group if it can (the engine's own algorithm does that), and
 * the whole group is decided again by the next member: the permits it could not give back stay
 * counted there until they age out, which errs towards denying. Nothing is journaled until a
 * member other than the first has allowed the whole group; then each request's permits are, as
 * for an allowed acquire, and replayed into the members before it on recovery.
 *
 * An in-process member holds each quota scaled by the fleet share: a request (or the sum of a
 * group's requests for one limiter and key) larger than a scaled limit could never fit there,
 * and denies the group without asking, naming the caller's limit.
 */
final class ChainGroups {

  private ChainGroups() {}

  static CompletionStage<Optional<GroupDecision>> acquire(Chain chain,
      List<GroupRequest> requests) {
    List<FailoverLimiterStore> stores = new ArrayList<>(requests.size());
    for (int k = 0; k < requests.size(); k++) {
      if (!(requests.get(k).store() instanceof FailoverLimiterStore f) || f.chain != chain) {
        throw new IllegalArgumentException("requests[" + k + "] is not on a limiter of this "
            + "failover chain");
      }
      stores.add(f);
    }
    return chain.router.<Optional<GroupDecision>>route("tryAcquireAllOrNothing", true,
        i -> on(chain, i, requests, stores)).handle((a, e) -> {
          if (e != null) {
            return Optional.of(lastResort(e, requests));
          }
          Optional<GroupDecision> g = a.value();
          if (g.isEmpty()) {
            return g;
          }
          int i = a.member();
          GroupDecision d = g.get();
          if (d.allowed()) {
            for (int k = 0; k < requests.size(); k++) {
              GroupRequest r = requests.get(k);
              chain.router.journal(stores.get(k).journal, r.key(), a, r.permits(), null);
            }
          }
          return Optional.of(stamped(i, d, stores));
        });
  }

  /** The group decided on member {@code i}. */
  private static CompletionStage<Optional<GroupDecision>> on(Chain chain, int i,
      List<GroupRequest> requests, List<FailoverLimiterStore> stores) {
    List<GroupRequest> mapped = new ArrayList<>(requests.size());
    Map<String, Long> sums = new HashMap<>();
    for (int k = 0; k < requests.size(); k++) {
      GroupRequest r = requests.get(k);
      FailoverLimiterStore f = stores.get(k);
      long sum = sums.merge(r.limiter() + '\u0000' + r.key(), r.permits(), Long::sum);
      Decision tooLarge = f.tooLarge(i, sum);
      if (tooLarge != null) {
        List<Optional<Decision>> each = new ArrayList<>(requests.size());
        for (int j = 0; j < requests.size(); j++) {
          each.add(Optional.empty());
        }
        each.set(k, Optional.of(tooLarge));
        return CompletableFuture.completedFuture(
            Optional.of(GroupDecision.of(tooLarge, k, each)));
      }
      mapped.add(new GroupRequest(f.stores[i], r.limiter(), r.key(), r.permits(),
          r.maxPermits()));
    }
    return chain.members[i].engine.tryAcquireAllOrNothingAsync(mapped);
  }

  /** Member {@code i}'s answer with each decision stamped by it and naming the caller's limits. */
  private static GroupDecision stamped(int i, GroupDecision d, List<FailoverLimiterStore> stores) {
    List<Optional<Decision>> each = new ArrayList<>(d.decisions().size());
    for (int k = 0; k < d.decisions().size(); k++) {
      FailoverLimiterStore f = stores.get(k);
      each.add(d.decisions().get(k).map(x -> f.stamp(i, x)));
    }
    int denied = d.deniedIndex().orElse(-1);
    Decision group = denied < 0 ? stores.get(0).chain.members[i].stamp(d.decision(), i > 0)
        : stores.get(denied).stamp(i, d.decision());
    return GroupDecision.of(group, denied, each);
  }

  /**
   * No member answered: the chain's OnFailure policy for the whole group, as each request's
   * store answers it (allowed, or denied by the first request; ERROR throws).
   */
  private static GroupDecision lastResort(Throwable e, List<GroupRequest> requests) {
    Throwable cause = Router.unwrap(e);
    List<Optional<Decision>> each = new ArrayList<>(requests.size());
    Decision first = null;
    for (GroupRequest r : requests) {
      Decision d = ((FailoverLimiterStore) r.store()).lastResort(cause);
      if (first == null) {
        first = d;
      }
      each.add(d.allowed() || each.isEmpty() ? Optional.of(d) : Optional.empty());
    }
    return GroupDecision.of(first, first.allowed() ? -1 : 0, each);
  }
}
