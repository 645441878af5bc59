package io.windowpane.redis.internal;

import io.windowpane.Decision;
import io.windowpane.GroupDecision;
import io.windowpane.spi.AllOrNothing;
import io.windowpane.spi.GroupRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/*
 * Design note. An all-or-nothing group (Windowpane.tryAcquireAllOrNothing) on Redis is one call
 * of wp_group wherever the group's keys can share one call: always on one
 * server, and on a Redis Cluster when every key lies in one slot (hash tags: the keys of limiter
 * "api" for "acme}:1" and "acme}:2" share the tag {api:acme}). The function reads every
 * member's windows, and records every member, as wp_acquire would, only when every member
 * fits; so a group is never admitted in part and, unlike the ordered leases, never holds
 * permits that a denial gives back a moment later: a concurrent caller is never denied by a
 * group that is itself denied.
 *
 * The answer is exactly what the engine-neutral algorithm (io.windowpane.spi.AllOrNothing:
 * ordered leases, give-backs at the first denial) answers at the same time:
 *   - requests for one limiter and key are merged (permits summed; a sum past the smallest limit
 *     is refused by AllOrNothing itself, with its message, before any call), and the merged
 *     members sorted by limiter name, then key: the order in which the leases would go;
 *   - the denying member is the first, in that order, that does not fit; its denial is
 *     wp_acquire's (remaining, the limit that waits longest, the exact retry after), what its
 *     lease's refusal answers; a member before it answers the room it had (its lease's
 *     remaining plus its permits), a member after it nothing;
 *   - allowed, each member answers its remaining after its permits, the group the smallest.
 * The leases decide one member after the other, each after the grants before it; the function
 * decides every member against what it read before writing, which is the same thing as long as
 * no two members share a Redis key. Key names carry the name's length (Layout), so distinct
 * (limiter, key) pairs share keys only when two limiter objects have one name and a window in
 * common; such a group, and any group whose keys span slots of a cluster, takes the ordered
 * leases instead. So does a group on another engine's stores, and a group of one member, which
 * is a plain tryAcquire there too.
 *
 * Under memory pressure a group with a key to create is refused whole before anything is
 * applied: wp_group checks every member's keys under the no-new-keys flag, and the ordered
 * leases are preceded by one EXISTS per member bound for a primary under pressure (leases),
 * rather than leasing the existing keys and giving them back.
 *
 * Top keys are fed as the leases feed them: a member granted (every member of an allowed
 * group, the members before the denying one) its permits as allowed, the denying member one
 * denial; none for the members after it.
 */

/** All-or-nothing groups in one call of {@code wp_group}, where the keys allow it. */
final class Groups {

  /** Requests for one limiter and key, merged. */
  private static final class Member {
    final GroupRequest first;
    final RedisLimiterStore store;
    final List<Integer> indexes = new ArrayList<>(1);
    long permits;
    String[] keys;

    Member(GroupRequest first) {
      this.first = first;
      this.store = (RedisLimiterStore) first.store();
    }
  }

  private Groups() {}

  /**
   * Decides {@code requests} all or nothing, in one call of {@code wp_group} where the keys
   * allow it, else by {@link AllOrNothing#acquire} (ordered leases).
   */
  static CompletableFuture<Optional<GroupDecision>> acquire(RedisSeam seam, TimeArg time,
      List<GroupRequest> requests) {
    Map<String, Member> merged = new LinkedHashMap<>();
    for (int i = 0; i < requests.size(); i++) {
      GroupRequest r = requests.get(i);
      if (!(r.store() instanceof RedisLimiterStore store) || !store.callsThrough(seam)) {
        return AllOrNothing.acquire(requests);
      }
      Member m = merged.computeIfAbsent(r.limiter() + '\u0000' + r.key(), k -> new Member(r));
      long sum = m.permits + r.permits();
      if (sum < 0 || sum > r.maxPermits()) {
        return AllOrNothing.acquire(requests); // refuses them, naming both requests
      }
      m.permits = sum;
      m.indexes.add(i);
    }
    Member[] members = merged.values().toArray(new Member[0]);
    if (members.length == 1) {
      return AllOrNothing.acquire(requests); // a plain tryAcquire
    }
    Arrays.sort(members, Comparator.<Member, String>comparing(m -> m.first.limiter())
        .thenComparing(m -> m.first.key()));
    Set<String> seen = new HashSet<>();
    List<String> keys = new ArrayList<>();
    int slot = -1;
    for (Member m : members) {
      m.keys = m.store.keysOf(m.first.key());
      for (String key : m.keys) {
        if (!seen.add(key)) {
          return leases(seam, requests, members); // two members on one Redis key
        }
        keys.add(key);
      }
      int s = seam.slot(m.keys[0]);
      if (slot >= 0 && s != slot) {
        return leases(seam, requests, members); // a cluster's keys in several slots
      }
      slot = s;
    }
    List<String> args = new ArrayList<>();
    String now = time.now();
    args.add(now);
    args.add(Integer.toString(members.length));
    for (Member m : members) {
      m.store.groupArgs(args, m.permits);
    }
    return Calls.translated(seam.callIntegers("wp_group", keys.toArray(new String[0]),
        args.toArray(new String[0])).thenApply(reply -> Optional.of(
            outcome(members, requests.size(), now, reply))), "tryAcquireAllOrNothing");
  }

  /**
   * The ordered leases ({@link AllOrNothing#acquire}) for a group that cannot be one call. Where
   * a member's primary is under memory pressure, the members' keys bound there are checked
   * first (one EXISTS per member, pipelined): a group with a key to create there is refused
   * whole, before any lease, as wp_group refuses it, rather than leasing its existing keys and
   * giving them back. (A key that expires between the check and its lease is refused by the
   * lease itself, and the grants before it are given back.)
   */
  private static CompletableFuture<Optional<GroupDecision>> leases(RedisSeam seam,
      List<GroupRequest> requests, Member[] members) {
    List<CompletableFuture<String>> checks = new ArrayList<>();
    for (Member m : members) {
      String[] keys = m.store.keysOf(m.first.key());
      if (seam.noNewKeys(keys[0])) {
        checks.add(seam.exists(keys).thenApply(n -> n < keys.length ? m.first.key() : null));
      }
    }
    if (checks.isEmpty()) {
      return AllOrNothing.acquire(requests);
    }
    return Calls.translated(CompletableFuture.allOf(checks.toArray(new CompletableFuture<?>[0]))
        .thenCompose(v -> {
          for (CompletableFuture<String> check : checks) {
            String key = check.join();
            if (key != null) {
              seam.refusedCreations(1);
              return CompletableFuture.failedFuture(
                  NewKeys.refused("tryAcquireAllOrNothing (the whole group)", key));
            }
          }
          return AllOrNothing.acquire(requests);
        }), "tryAcquireAllOrNothing");
  }

  /**
   * The group's answer from wp_group's reply: {@code {0, remaining...}} allowed, or
   * {@code {d, room 1..d-1, remaining d, denying limit, retry after}}; feeds the top keys.
   */
  private static GroupDecision outcome(Member[] members, int size, String now,
      List<Long> reply) {
    int denied = (int) (long) reply.get(0) - 1; // -1: allowed
    List<Optional<Decision>> decisions = new ArrayList<>(size);
    for (int k = 0; k < size; k++) {
      decisions.add(Optional.empty());
    }
    Decision group = null;
    long smallest = Long.MAX_VALUE;
    for (int j = 0; j < members.length; j++) {
      Member m = members[j];
      Decision d;
      if (denied < 0 || j < denied) {
        d = Decision.allowed(reply.get(j + 1));
        smallest = Math.min(smallest, d.remaining());
        m.store.fedTop(now, m.first.key(), m.permits);
      } else if (j == denied) {
        d = Decision.denied(reply.get(j + 1), m.store.limit((int) (long) reply.get(j + 2)),
            reply.get(j + 3));
        group = d;
        m.store.fedTop(now, m.first.key(), 0);
      } else {
        continue;
      }
      for (int index : m.indexes) {
        decisions.set(index, Optional.of(d));
      }
    }
    if (group == null) {
      group = Decision.allowed(smallest);
    }
    return GroupDecision.of(group, denied < 0 ? -1 : members[denied].indexes.get(0), decisions);
  }
}
