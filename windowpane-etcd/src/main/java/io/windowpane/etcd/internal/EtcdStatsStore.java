package io.windowpane.etcd.internal;

import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowSpec;
import io.windowpane.spi.ReplayBatch;
import io.windowpane.spi.EventTimeResult;
import io.windowpane.spi.StatsStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A statistics window on etcd: a histogram of panes or an exact log per key, in one value. */
final class EtcdStatsStore implements StatsStore {

  private final Lanes lanes;
  private final WindowSpec window;

  EtcdStatsStore(Context ctx, String name, StatsSpec spec) {
    WindowSpec w = spec.window();
    this.window = w;
    this.lanes = new Lanes(ctx, 's', name, Shapes.of(spec), spec.expiryMillis(),
        spec.isExact()
            ? () -> new ExactState(w.windowMillis(), spec.maxValues(), ctx.maxValueBytes, name)
            : () -> new HistogramState(w.resolutionMillis(), w.panes(), spec.buckets()));
  }

  private CompletableFuture<Void> recordCall(String key, double[] values) {
    return lanes.submit(key, new Pending<Void>(lanes.now(), lanes.deadline()) {
      @Override
      boolean apply(Doc doc, long eff) {
        if (doc.body instanceof ExactState) {
          ((ExactState) doc.body).record(eff, values);
        } else {
          ((HistogramState) doc.body).record(eff, values);
        }
        return true;
      }
    });
  }

  private CompletableFuture<Summary> summaryCall(String key) {
    return lanes.submit(key, new Pending<Summary>(lanes.now(), lanes.deadline()) {
      @Override
      boolean apply(Doc doc, long eff) {
        answer = doc.body instanceof ExactState ? ((ExactState) doc.body).summary(eff)
            : ((HistogramState) doc.body).summary(eff);
        return false;
      }
    });
  }

  /**
   * Records {@code values} observed at {@code atMillis} (see {@link Replay}): into the histogram
   * pane of that time, or in time order into an exact window, which refuses the whole batch
   * past its bounds as {@link #record} does.
   */
  @Override
  public CompletionStage<Void> replayAsync(String key, double[] values, long atMillis,
      String replayId) {
    IllegalArgumentException bad = Replay.checkId(replayId);
    if (bad != null) {
      return CompletableFuture.failedFuture(bad);
    }
    return lanes.submit(key, replay(lanes.now(), lanes.deadline(), values, atMillis, replayId));
  }

  /**
   * Records each batch's values as {@link #replayAsync} would, in as few etcd transactions as
   * etcd allows (see {@link ReplayChunk}); a batch an exact window refuses fails alone.
   */
  @Override
  public CompletionStage<Void> replayAllAsync(List<ReplayBatch> batches) {
    return ReplayChunk.replay(lanes, batches, (b, now, deadline) ->
        replay(now, deadline, b.values(), b.atMillis(), b.replayId()));
  }

  /** {@code values} observed at {@code atMillis}, at clock reading {@code now}. */
  /**
   * An event-time record: an operation on the key's lane judged at its effective time
   * {@code eff} and recorded at {@code min(atMillis, eff)} the way a replay records (a full
   * exact window refuses it, nothing recorded).
   */
  @Override
  public CompletionStage<EventTimeResult> recordAtAsync(String key, double[] values,
      long atMillis, long maxAheadMillis) {
    return lanes.submit(key, new Pending<EventTimeResult>(lanes.now(), lanes.deadline()) {
      @Override
      boolean apply(Doc doc, long eff) {
        EventTimeResult refused = EventTimeResult.judge(window, eff, atMillis, maxAheadMillis);
        if (refused != null) {
          answer = refused;
          return false;
        }
        long t = EventTimeResult.instant(eff, atMillis);
        boolean held = doc.body instanceof ExactState ? ((ExactState) doc.body).replay(eff, t,
            values) : ((HistogramState) doc.body).replay(eff, t, values);
        answer = held ? EventTimeResult.recorded(0, eff) : EventTimeResult.late(0, eff);
        return held;
      }
    });
  }

  private static Replay replay(long now, long deadlineNanos, double[] values, long atMillis,
      String replayId) {
    return new Replay(now, deadlineNanos, atMillis, replayId) {
      @Override
      boolean record(Doc doc, long at, long eff) {
        return doc.body instanceof ExactState ? ((ExactState) doc.body).replay(eff, at, values)
            : ((HistogramState) doc.body).replay(eff, at, values);
      }
    };
  }

  @Override
  public void record(String key, double[] values) {
    lanes.await(recordCall(key, values), "record");
  }

  @Override
  public Summary summary(String key) {
    return lanes.await(summaryCall(key), "summary");
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
  public List<Summary> summaryAll(List<String> keys) {
    return lanes.await(Lanes.each(keys, this::summaryCall), "summaryAll");
  }

  @Override
  public CompletionStage<Void> recordAsync(String key, double[] values) {
    return recordCall(key, values);
  }

  @Override
  public CompletionStage<Summary> summaryAsync(String key) {
    return summaryCall(key);
  }

  @Override
  public CompletionStage<List<Summary>> summaryAllAsync(List<String> keys) {
    return Lanes.unwrapped(Lanes.each(keys, this::summaryCall));
  }
}
