package io.windowpane.etcd.internal;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.ReplayBatch;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A rate limiter on etcd: every limit of the quota lives in the same etcd key, so a decision is
 * all-or-nothing across the limits by construction, and a denied request writes nothing. A lease
 * is an acquire of as many permits as fit, and a release takes a lease's unspent permits back
 * out of the position where it put them: both one operation on the key's lane like an acquire.
 */
final class EtcdLimiterStore implements LimiterStore {

  private final Lanes lanes;
  private final Limit[] limits;
  /** The quota a decoded key's windows are made for: the latest one a store of the lanes got. */
  private final java.util.concurrent.atomic.AtomicReference<Quota> sizing;

  EtcdLimiterStore(Context ctx, String name, Quota quota) {
    this.sizing = new java.util.concurrent.atomic.AtomicReference<>(quota);
    this.lanes = new Lanes(ctx, 'l', name, Shapes.of(quota), quota.expiryMillis(),
        () -> Windows.forQuota(sizing.get()));
    this.limits = quota.limits().toArray(new Limit[0]);
  }

  private EtcdLimiterStore(EtcdLimiterStore current, Quota quota) {
    this.sizing = current.sizing;
    this.lanes = current.lanes;
    this.limits = quota.limits().toArray(new Limit[0]);
  }

  /**
   * The same keys (the same lanes, under the shape of the first quota) decided against
   * {@code quota}, whose limits differ from this store's only in permits and names.
   */
  EtcdLimiterStore withQuota(Quota quota) {
    sizing.set(quota);
    return new EtcdLimiterStore(this, quota);
  }

  private CompletableFuture<Decision> call(String key, long permits) {
    return lanes.submit(key, new Pending<Decision>(lanes.now(), lanes.deadline()) {
      @Override
      boolean apply(Doc doc, long eff) {
        WindowState[] ws = ((Windows) doc.body).windows;
        boolean fits = true;
        for (int i = 0; i < ws.length && fits; i++) {
          fits = ws[i].fits(eff, permits, limits[i].permits());
        }
        answer = fits ? take(ws, eff, permits) : denial(ws, eff, permits);
        return fits;
      }
    });
  }

  /**
   * One transaction on the key, as {@link #call} for {@code g} permits: every limit's window
   * counts {@code count + permits} against its limit, so the largest {@code g} that fits them
   * all is the smallest remaining, capped at {@code maxPermits}.
   */
  private CompletableFuture<Optional<Grant>> leaseCall(String key, long minPermits,
      long maxPermits) {
    return lanes.submit(key, new Pending<Optional<Grant>>(lanes.now(), lanes.deadline()) {
      @Override
      boolean apply(Doc doc, long eff) {
        WindowState[] ws = ((Windows) doc.body).windows;
        long g = maxPermits;
        for (int i = 0; i < ws.length; i++) {
          g = Math.min(g, ws[i].remaining(eff, limits[i].permits()));
        }
        if (g < minPermits) {
          answer = Optional.of(new Grant(0, eff, denial(ws, eff, minPermits)));
          return false;
        }
        answer = Optional.of(new Grant(g, eff, take(ws, eff, g)));
        return true;
      }
    });
  }

  /** Records {@code permits} in every window at {@code eff}; the allowed decision. */
  private Decision take(WindowState[] ws, long eff, long permits) {
    long remaining = Long.MAX_VALUE;
    for (int i = 0; i < ws.length; i++) {
      ws[i].add(eff, permits);
      remaining = Math.min(remaining, ws[i].remaining(eff, limits[i].permits()));
    }
    return Decision.allowed(remaining);
  }

  /** The denial of {@code permits} at {@code eff}, by the limit that frees them last. */
  private Decision denial(WindowState[] ws, long eff, long permits) {
    long remaining = Long.MAX_VALUE;
    long wait = -1;
    int by = 0;
    for (int i = 0; i < ws.length; i++) {
      remaining = Math.min(remaining, ws[i].remaining(eff, limits[i].permits()));
      long retry = ws[i].retryAfter(eff, permits, limits[i].permits());
      if (retry > wait) {
        wait = retry;
        by = i;
      }
    }
    return Decision.denied(remaining, limits[by], wait);
  }

  /**
   * Records {@code permits} taken at {@code atMillis} in every limit whose window still holds
   * that time, with no room check (see {@link Replay}).
   */
  @Override
  public CompletionStage<Void> replayAsync(String key, long permits, long atMillis,
      String replayId) {
    IllegalArgumentException bad = Replay.checkId(replayId);
    if (bad != null) {
      return CompletableFuture.failedFuture(bad);
    }
    return lanes.submit(key, replay(lanes.now(), lanes.deadline(), permits, atMillis, replayId));
  }

  /**
   * Records each batch as {@link #replayAsync} would, in as few etcd transactions as etcd
   * allows (see {@link ReplayChunk}).
   */
  @Override
  public CompletionStage<Void> replayAllAsync(List<ReplayBatch> batches) {
    return ReplayChunk.replay(lanes, batches, (b, now, deadline) ->
        replay(now, deadline, b.count(), b.atMillis(), b.replayId()));
  }

  /** {@code permits} taken at {@code atMillis}, at clock reading {@code now}. */
  private static Replay replay(long now, long deadlineNanos, long permits, long atMillis,
      String replayId) {
    return new Replay(now, deadlineNanos, atMillis, replayId) {
      @Override
      boolean record(Doc doc, long at, long eff) {
        boolean any = false;
        for (WindowState w : ((Windows) doc.body).windows) {
          any |= w.replay(eff, at, permits);
        }
        return any;
      }
    };
  }

  /**
   * Grants the largest {@code g <= maxPermits} that fits every limit now, if
   * {@code g >= minPermits}, recorded at the key's effective time exactly as an acquire of
   * {@code g} (the grant's {@code atMillis}); else 0 with the denial of {@code minPermits}. One
   * operation on the key's lane: one compare-and-swap transaction, shared with the key's other
   * operations of this process, retried like an acquire.
   */
  @Override
  public Optional<Grant> lease(String key, long minPermits, long maxPermits) {
    return lanes.await(leaseCall(key, minPermits, maxPermits), "lease");
  }

  @Override
  public CompletionStage<Optional<Grant>> leaseAsync(String key, long minPermits,
      long maxPermits) {
    return leaseCall(key, minPermits, maxPermits);
  }

  /**
   * Takes up to {@code permits} back out of the position of {@code atMillis} in every limit whose
   * window still holds it, idempotent per {@code releaseId} (see {@link Release}). One operation
   * on the key's lane, like a replay.
   */
  @Override
  public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
      String releaseId) {
    return lanes.submit(key, new Release(lanes.now(), lanes.deadline(), permits, atMillis,
        releaseId));
  }

  @Override
  public Decision tryAcquire(String key, long permits) {
    return lanes.await(call(key, permits), "tryAcquire");
  }

  @Override
  public boolean holdsState(String key) {
    return lanes.await(lanes.submit(key, new Pending<Boolean>(lanes.now(), lanes.deadline()) {
      @Override
      boolean apply(Doc doc, long eff) {
        answer = doc.live();
        return false;
      }
    }), "holdsState");
  }

  @Override
  public List<Decision> tryAcquireAll(List<String> keys, long permits) {
    return lanes.await(Lanes.each(keys, k -> call(k, permits)), "tryAcquireAll");
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
    return call(key, permits);
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<String> keys, long permits) {
    return Lanes.unwrapped(Lanes.each(keys, k -> call(k, permits)));
  }
}
