package io.windowpane.internal.failover;

import io.windowpane.Decision;
import io.windowpane.Failover.Health;
import io.windowpane.Limit;
import io.windowpane.OnFailure;
import io.windowpane.Quota;
import io.windowpane.TopKey;
import io.windowpane.WindowpaneException;
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
 * No leases (lease answers empty, releaseAsync refuses: the SPI defaults). A release must reach
 * the member that granted, and a grant taken by a fallback is journaled and replayed into the
 * primary on recovery, after which its unspent part would have to be released there and taken
 * out of the journal if the replay has not happened yet; the Grant carries no member, and
 * routing by time or health would send some releases to the wrong member. Hot-key leasing and
 * all-or-nothing requests over a chain stay out until that is designed (docs/guarantees.md).
 */
final class FailoverLimiterStore extends MemberStores<LimiterStore> implements LimiterStore {

  /** Retry-after of a last-resort denial. */
  static final long LAST_RESORT_RETRY_MILLIS = 1_000;

  private final Quota quota;
  private final Quota[] quotas;

  FailoverLimiterStore(Chain chain, Quota quota, LimiterStore[] stores, Quota[] quotas,
      Journal journal) {
    super(chain, stores, journal);
    this.quota = quota;
    this.quotas = quotas;
  }

  @Override
  public Decision tryAcquire(String key, long permits) {
    return Chain.join(tryAcquireAsync(key, permits).toCompletableFuture());
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
    return chain.<Decision>route(true, 0, i -> decide(i, key, permits), null)
        .handle((a, e) -> {
          if (e != null) {
            return lastResort(e);
          }
          if (a.value().allowed()) {
            chain.journal(journal, key, a.member(), permits, null);
          }
          return stamp(a.member(), a.value());
        });
  }

  @Override
  public List<Decision> tryAcquireAll(List<String> keys, long permits) {
    return Chain.join(tryAcquireAllAsync(keys, permits).toCompletableFuture());
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<String> keys, long permits) {
    return chain.<List<Decision>>route(true, 0, i -> decideAll(i, keys, permits), null)
        .handle((a, e) -> {
          List<Decision> out = new ArrayList<>(keys.size());
          for (int k = 0; k < keys.size(); k++) {
            if (e != null) {
              out.add(lastResort(e));
              continue;
            }
            Decision d = a.value().get(k);
            if (d.allowed()) {
              chain.journal(journal, keys.get(k), a.member(), permits, null);
            }
            out.add(stamp(a.member(), d));
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
  private Decision tooLarge(int i, long permits) {
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
  private Decision stamp(int i, Decision d) {
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

  private Decision lastResort(Throwable e) {
    Throwable cause = Chain.unwrap(e);
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
    return d.answeredBy("none", true);
  }

  /**
   * What {@link #tryAcquire} would answer now, asked of the member that would decide it (empty
   * when that member's engine cannot peek); a failing member falls through as a decision does.
   */
  @Override
  public Optional<Decision> peek(String key, long permits) {
    return Chain.join(chain.<Optional<Decision>>route(true, 0, i -> {
      Decision tooLarge = tooLarge(i, permits);
      return CompletableFuture.completedFuture(
          tooLarge != null ? Optional.of(tooLarge) : stores[i].peek(key, permits));
    }, null).thenApply(a -> a.value().map(d -> stamp(a.member(), d))));
  }

  /** The first readable member's top keys (empty when its engine cannot rank keys). */
  @Override
  public Optional<List<TopKey>> topKeys(int n, boolean denied) {
    return Chain.join(read(i -> CompletableFuture.completedFuture(stores[i].topKeys(n, denied))));
  }

  @Override
  public boolean holdsState(String key) {
    return firstReadable(s -> s.holdsState(key));
  }

  @Override
  public void cleanUp() {
    each(LimiterStore::cleanUp);
  }

  @Override
  public CompletionStage<Void> replay(int member, String key, Journal.Batch batch) {
    return stores[member].replayAsync(key, batch.count, batch.atMillis, batch.id);
  }
}
