package io.windowpane.internal.failover;

import io.windowpane.Decision;
import io.windowpane.Failover.Health;
import io.windowpane.Limit;
import io.windowpane.OnFailure;
import io.windowpane.Quota;
import io.windowpane.TopKey;
import io.windowpane.WindowpaneException;
import io.windowpane.internal.ApiAccess;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/*
 * A rate limiter over a chain. Decisions come from the first UP member; a member's answer is
 * stamped with its name and `degraded` unless it is the first member. In-process members hold
 * the quota scaled by the fleet share (FleetShare); their denials name the caller's limit, and a
 * request larger than a scaled limit is denied without asking them (it could never fit there),
 * with a retryAfter of that limit's window. Allowed permits from any member but the first are
 * journaled for replay. When no member answers, the chain's OnFailure policy answers.
 *
 * Peek goes where a decision would go (the first UP member) and is stamped the same way; top
 * keys come from the first readable member, so after a failover they are that member's: the
 * fallback's sketch holds only what it saw itself.
 *
 * Leases go where a decision would go, and the Grant's decision is stamped with the member that
 * granted, so its release goes to that member and never to another (a release owed to a member
 * that is DOWN is dropped and counted: its permits age out there, erring towards denying). A
 * fallback's grant is journaled like an allowed acquire of its permits; an in-process fallback
 * grants exactly minPermits, so what the journal replays is what was taken (a slice saves no
 * round trip in process). A remote fallback's grant is journaled whole: what its holder gives
 * back there is still replayed into the members before it (stricter, never looser). The release
 * form without the Grant cannot know the member and refuses.
 */
final class FailoverLimiterStore extends MemberStores<LimiterStore> implements LimiterStore {

  /** Retry-after of a last-resort denial. */
  static final long LAST_RESORT_RETRY_MILLIS = 1_000;

  private final Quota quota;
  private final Quota[] quotas;

  FailoverLimiterStore(Chain chain, Quota quota, LimiterStore[] stores, Quota[] quotas,
      Journal journal) {
    super(chain, stores, journal, LIMITERS);
    this.quota = quota;
    this.quotas = quotas;
  }

  @Override
  public Decision tryAcquire(String key, long permits) {
    return Router.join(tryAcquireAsync(key, permits).toCompletableFuture());
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
    return chain.router.<Decision>route("tryAcquire", true, i -> decide(i, key, permits))
        .handle((a, e) -> {
          if (e != null) {
            return lastResort(e);
          }
          if (a.value().allowed()) {
            chain.router.journal(journal, key, a, permits, null);
          }
          return stamp(a.member(), a.value());
        });
  }

  @Override
  public List<Decision> tryAcquireAll(List<String> keys, long permits) {
    return Router.join(tryAcquireAllAsync(keys, permits).toCompletableFuture());
  }

  /**
   * Decided by the first UP member; where it refuses to create some keys (memory pressure), only
   * those items go to the next member ({@link BatchItems}), so every item is decided once, and
   * items no member took get the {@link OnFailure} answer.
   */
  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<String> keys, long permits) {
    return BatchItems.<Decision>route(chain.router, "tryAcquireAll", keys.size(),
        (i, items) -> decideAll(i, BatchItems.at(keys, items), permits)).thenApply(o -> {
          List<Decision> out = new ArrayList<>(keys.size());
          for (int k = 0; k < keys.size(); k++) {
            Router.Answer<Decision> a = o.answers().get(k);
            if (a != null && a.value().allowed()) {
              chain.router.journal(journal, keys.get(k), a, permits, null);
            }
            out.add(a == null ? null : stamp(a.member(), a.value()));
          }
          if (o.failure() != null) {
            Decision last;
            try {
              last = lastResort(o.failure());
            } catch (RuntimeException e) {
              throw o.unanswered("tryAcquireAll", keys, out, e);
            }
            out.replaceAll(d -> d == null ? last : d);
          }
          return out;
        });
  }

  private CompletionStage<Decision> decide(int i, String key, long permits) {
    Decision tooLarge = tooLarge(i, permits);
    return tooLarge != null ? CompletableFuture.completedFuture(tooLarge)
        : stores[i].tryAcquireAsync(key, permits);
  }

  private CompletionStage<List<Decision>> decideAll(int i, List<String> keys, long permits) {
    Decision tooLarge = tooLarge(i, permits);
    if (tooLarge == null) {
      return stores[i].tryAcquireAllAsync(keys, permits);
    }
    List<Decision> out = new ArrayList<>(keys.size());
    for (int k = 0; k < keys.size(); k++) {
      out.add(tooLarge);
    }
    return CompletableFuture.completedFuture(out);
  }

  /** A denial when {@code permits} exceed a limit of member {@code i}'s scaled quota. */
  Decision tooLarge(int i, long permits) {
    if (quotas[i] == quota || permits <= quotas[i].smallestPermits()) {
      return null;
    }
    List<Limit> scaled = quotas[i].limits();
    for (int l = 0; l < scaled.size(); l++) {
      if (permits > scaled.get(l).permits()) {
        Limit original = quota.limits().get(l);
        return Decision.denied(0, original, original.window().windowMillis());
      }
    }
    return null;
  }

  /** Member {@code i}'s decision, stamped, with its denial naming the caller's limit. */
  Decision stamp(int i, Decision d) {
    Member m = chain.members[i];
    if (!d.allowed() && quotas[i] != quota) {
      Limit by = d.deniedBy().orElseThrow();
      int l = quotas[i].limits().indexOf(by);
      if (l >= 0) {
        d = Decision.denied(d.remaining(), quota.limits().get(l), d.retryAfterMillis());
      }
    }
    return m.stamp(d, i > 0);
  }

  Decision lastResort(Throwable e) {
    Throwable cause = Router.unwrap(e);
    OnFailure policy = chain.settings.onFailure();
    if (policy == OnFailure.ERROR || !(cause instanceof WindowpaneException)
        || cause instanceof io.windowpane.CapacityExceededException) {
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new WindowpaneException(cause.toString(), cause);
    }
    Decision d = policy == OnFailure.ALLOW ? Decision.allowed(0)
        : Decision.denied(0, quota.limits().get(0), LAST_RESORT_RETRY_MILLIS);
    return ApiAccess.answeredBy(d, "none", true);
  }

  @Override
  public Optional<Grant> lease(String key, long minPermits, long maxPermits) {
    return Router.join(leaseAsync(key, minPermits, maxPermits).toCompletableFuture());
  }

  @Override
  public CompletionStage<Optional<Grant>> leaseAsync(String key, long minPermits,
      long maxPermits) {
    return chain.router.<Optional<Grant>>route("lease", true,
        i -> leaseOn(i, key, minPermits, maxPermits)).handle((a, e) -> {
          if (e != null) {
            Decision d = lastResort(e);
            return Optional.of(new Grant(d.allowed() ? minPermits : 0,
                chain.settings.clock().millis(), d));
          }
          if (a.value().isEmpty()) {
            return a.value();
          }
          Grant g = a.value().get();
          if (g.permits() > 0) {
            chain.router.journal(journal, key, a, g.permits(), null);
          }
          return Optional.of(new Grant(g.permits(), g.atMillis(), stamp(a.member(), g.decision())));
        });
  }

  private CompletionStage<Optional<Grant>> leaseOn(int i, String key, long minPermits,
      long maxPermits) {
    Decision tooLarge = tooLarge(i, minPermits);
    if (tooLarge != null) {
      return CompletableFuture.completedFuture(
          Optional.of(new Grant(0, chain.settings.clock().millis(), tooLarge)));
    }
    long max = i > 0 && chain.members[i].inProcess ? minPermits
        : Math.min(maxPermits, quotas[i].smallestPermits());
    return stores[i].leaseAsync(key, minPermits, max);
  }

  /**
   * Gives back to the member that granted ({@link Grant#engine()}); dropped and counted while it
   * is DOWN; nothing to give back for a grant of the last-resort policy ("none").
   */
  @Override
  public CompletionStage<Void> releaseAsync(String key, long permits, Grant grant,
      String releaseId) {
    String by = grant.engine().orElseThrow(() -> new IllegalArgumentException(
        "grant was not made by this failover chain (it names no member): " + grant));
    if (by.equals("none")) {
      return CompletableFuture.completedFuture(null);
    }
    int i = chain.memberIndex(by);
    if (i < 0) {
      throw new IllegalArgumentException("grant names '" + by + "', not a member of the chain "
          + chain);
    }
    Member m = chain.members[i];
    if (m.health == Health.DOWN) {
      chain.droppedReleases.incrementAndGet();
      return CompletableFuture.completedFuture(null);
    }
    CompletionStage<Void> sent;
    try {
      sent = stores[i].releaseAsync(key, permits, grant.atMillis(), releaseId);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return m.inProcess ? sent : Router.timed(sent, m.callTimeoutMillis);
  }

  /** Refused: without the grant the chain cannot know which member to give back to. */
  @Override
  public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
      String releaseId) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException("a failover chain "
        + "gives permits back to the member that granted them: release with the Grant "
        + "(releaseAsync(key, permits, grant, releaseId))"));
  }

  /**
   * What {@link #tryAcquire} would answer now, asked of the member that would decide it (empty
   * when that member's engine cannot peek); a failing member falls through as a decision does.
   */
  @Override
  public Optional<Decision> peek(String key, long permits) {
    return Router.join(peekAsync(key, permits).toCompletableFuture());
  }

  /**
   * {@link #peek} without blocking: each member's own {@code peekAsync}, so a caller on an I/O
   * thread (a continuation of another engine call) never waits on a blocking call there.
   */
  @Override
  public CompletionStage<Optional<Decision>> peekAsync(String key, long permits) {
    return chain.router.<Optional<Decision>>route(null, true, i -> {
      Decision tooLarge = tooLarge(i, permits);
      return tooLarge != null ? CompletableFuture.completedFuture(Optional.of(tooLarge))
          : stores[i].peekAsync(key, permits);
    }).thenApply(a -> a.value().map(d -> stamp(a.member(), d)));
  }

  /** The first readable member's top keys (empty when its engine cannot rank keys). */
  @Override
  public Optional<List<TopKey>> topKeys(int n, boolean denied) {
    return readNow(s -> s.topKeys(n, denied));
  }

  @Override
  public CompletionStage<Void> replay(int member, String key, Journal.Batch batch) {
    return stores[member].replayAsync(key, batch.count, batch.atMillis, batch.id);
  }
}
