package io.windowpane.etcd.internal;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.spi.LimiterStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A rate limiter on etcd: every limit of the quota lives in the same etcd key, so a decision is
 * all-or-nothing across the limits by construction, and a denied request writes nothing.
 */
final class EtcdLimiterStore implements LimiterStore {

  private final Lanes lanes;
  private final Limit[] limits;

  EtcdLimiterStore(Context ctx, String name, Quota quota) {
    this.lanes = new Lanes(ctx, 'l', name, Shapes.of(quota), quota.expiryMillis(),
        () -> Windows.forQuota(quota));
    this.limits = quota.limits().toArray(new Limit[0]);
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
        long remaining = Long.MAX_VALUE;
        if (fits) {
          for (int i = 0; i < ws.length; i++) {
            ws[i].add(eff, permits);
            remaining = Math.min(remaining, ws[i].remaining(eff, limits[i].permits()));
          }
          answer = Decision.allowed(remaining);
          return true;
        }
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
        answer = Decision.denied(remaining, limits[by], wait);
        return false;
      }
    });
  }

  /**
   * Records {@code permits} taken at {@code atMillis} in every limit whose window still holds
   * that time, with no room check (see {@link Replay}).
   */
  @Override
  public CompletionStage<Void> replayAsync(String key, long permits, long atMillis,
      String replayId) {
    return lanes.submit(key, new Replay(lanes.now(), lanes.deadline(), atMillis, replayId) {
      @Override
      boolean record(Doc doc, long at, long eff) {
        boolean any = false;
        for (WindowState w : ((Windows) doc.body).windows) {
          any |= w.replay(eff, at, permits);
        }
        return any;
      }
    });
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
