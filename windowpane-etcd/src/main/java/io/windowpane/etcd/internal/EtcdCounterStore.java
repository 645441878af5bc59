package io.windowpane.etcd.internal;

import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.EventTimeResult;
import io.windowpane.spi.ReplayBatch;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A sliding-window counter on etcd: one key per counter key, decided through its lane. */
final class EtcdCounterStore implements CounterStore {

  private final Lanes lanes;
  private final CountCache cache;
  private final WindowSpec spec;

  EtcdCounterStore(Context ctx, String name, WindowSpec spec) {
    this.spec = spec;
    this.lanes = new Lanes(ctx, 'c', name, Shapes.of(spec), spec.expiryMillis(),
        () -> Windows.forCounter(spec));
    this.cache = ctx.cacheStalenessMillis > 0
        ? new CountCache(ctx, lanes.prefix, ctx.cacheStalenessMillis) : null;
    lanes.cache = cache;
  }

  /** The count from the read cache, or -1 if it cannot answer. */
  private long cachedCount(String key, long now) {
    Snapshot snap = cache == null ? null : cache.lookup(key);
    if (snap == null) {
      return -1;
    }
    Doc doc = lanes.newDoc().load(snap.value);
    return window(doc).count(doc.effective(now));
  }

  private static WindowState window(Doc doc) {
    return ((Windows) doc.body).windows[0];
  }

  private CompletableFuture<Long> addCall(String key, long n) {
    return lanes.submit(key, new Pending<Long>(lanes.now(), lanes.deadline()) {
      @Override
      boolean apply(Doc doc, long eff) {
        WindowState w = window(doc);
        w.add(eff, n);
        answer = w.count(eff);
        return true;
      }
    });
  }

  private CompletableFuture<Long> countCall(String key) {
    long cached = cachedCount(key, lanes.now());
    if (cached >= 0) {
      return CompletableFuture.completedFuture(cached);
    }
    return lanes.submit(key, new Pending<Long>(lanes.now(), lanes.deadline()) {
      @Override
      boolean apply(Doc doc, long eff) {
        answer = window(doc).count(eff);
        return false;
      }
    });
  }

  /**
   * An event-time add: one more kind of operation on the key's lane, judged at its effective
   * time {@code eff} (EventTimeResult's contract) and recorded at {@code min(atMillis, eff)} the
   * way a replay records, through the same compare-and-swap transaction, with no replay id.
   */
  @Override
  public CompletionStage<EventTimeResult> addAtAsync(String key, long n, long atMillis,
      long maxAheadMillis) {
    return lanes.submit(key, new Pending<EventTimeResult>(lanes.now(), lanes.deadline()) {
      @Override
      boolean apply(Doc doc, long eff) {
        WindowState w = window(doc);
        EventTimeResult refused = EventTimeResult.judge(spec, eff, atMillis, maxAheadMillis);
        if (refused != null) {
          answer = refused.verdict() == EventTimeResult.Verdict.AHEAD ? refused
              : EventTimeResult.late(w.count(eff), eff);
          return false;
        }
        boolean held = w.addAt(eff, EventTimeResult.instant(eff, atMillis), n);
        answer = held ? EventTimeResult.recorded(w.count(eff), eff)
            : EventTimeResult.late(w.count(eff), eff);
        return held;
      }
    });
  }

  /** {@code n} events at {@code atMillis} (see {@link Replay}), at clock reading {@code now}. */
  private static Replay replay(long now, long deadlineNanos, long n, long atMillis,
      String replayId) {
    return new Replay(now, deadlineNanos, atMillis, replayId) {
      @Override
      boolean record(Doc doc, long at, long eff) {
        return window(doc).replay(eff, at, n);
      }
    };
  }

  /** Records {@code n} events at {@code atMillis} (see {@link Replay}). */
  @Override
  public CompletionStage<Void> replayAsync(String key, long n, long atMillis, String replayId) {
    IllegalArgumentException bad = Replay.checkId(replayId);
    if (bad != null) {
      return CompletableFuture.failedFuture(bad);
    }
    return lanes.submit(key, replay(lanes.now(), lanes.deadline(), n, atMillis, replayId));
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

  @Override
  public long add(String key, long n) {
    return lanes.await(addCall(key, n), "add");
  }

  @Override
  public long count(String key) {
    return lanes.await(countCall(key), "count");
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
  public List<Long> addAll(List<String> keys, long n) {
    return lanes.await(Lanes.each(keys, k -> addCall(k, n)), "addAll");
  }

  @Override
  public List<Long> countAll(List<String> keys) {
    return lanes.await(Lanes.each(keys, this::countCall), "countAll");
  }

  @Override
  public CompletionStage<Long> addAsync(String key, long n) {
    return addCall(key, n);
  }

  @Override
  public CompletionStage<Long> countAsync(String key) {
    return countCall(key);
  }

  @Override
  public CompletionStage<List<Long>> addAllAsync(List<String> keys, long n) {
    return Lanes.unwrapped(Lanes.each(keys, k -> addCall(k, n)));
  }

  @Override
  public CompletionStage<List<Long>> countAllAsync(List<String> keys) {
    return Lanes.unwrapped(Lanes.each(keys, this::countCall));
  }
}
