package io.windowpane.internal.failover;

import io.windowpane.Limit;
import io.windowpane.Quota;
import java.util.ArrayList;
import java.util.List;

/**
 * The limits an in-process member enforces on one node of a fleet: each limit's permits times
 * the node's share, rounded down, at least 1, under the same name and window.
 *
 * <p>Overshoot: N nodes with share 1/N admit at most the sum of their rounded-down shares, no
 * more than the limit, over any window that lies wholly inside the outage. A window that
 * straddles the trip can also hold what the primary admitted before it: at most the limit
 * again, so 2L in the worst case (and L + N when a share rounds up to 1 permit).
 */
final class FleetShare {

  private FleetShare() {}

  static Quota scale(Quota quota, double share) {
    if (share >= 1) {
      return quota;
    }
    List<Limit> scaled = new ArrayList<>();
    for (Limit l : quota.limits()) {
      long permits = Math.max(1, (long) Math.floor(l.permits() * share));
      scaled.add(Limit.of(permits, l.window()).named(l.name()));
    }
    return Quota.of(scaled);
  }
}
