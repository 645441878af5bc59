package io.windowpane.internal.buffering;

import io.windowpane.Buffering;
import io.windowpane.internal.Stages;
import io.windowpane.spi.CounterStore;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A counter's store that buffers this node's events per key and sends them in batches (see
 * docs/leasing.md, "Counters and statistics: buffering"). S is the staleness bound.
 *
 * <p>Design: each key has a {@link View}, guarded by its own monitor: the count the engine last
 * answered for the key, the node time the call that answered was started ({@code readAt}), the
 * events added here and not yet sent ({@code pending}) and the calls sent and not yet answered
 * ({@code inFlight}, in send order). The monitor is held only to read or swap these numbers,
 * never across an engine call. An event is moved from {@code pending} into exactly one call, so
 * it is recorded once; a call that fails loses its events (counted), it is never resent, since
 * {@code add} is not idempotent.
 *
 * <p>A view is fresh while {@code now - readAt <= S}: {@code add} and {@code count} then answer
 * {@code count + pending + the events of calls sent after the answered one} with no I/O.
 * Otherwise the call goes to the engine, carrying the pending events with it, and its answer
 * refreshes the view (concurrent refreshes are allowed; an older answer never replaces a newer
 * one). The flusher ({@link io.windowpane.internal.Periodic}) sends every key's pending events every S/2 with {@code addAsync}, so
 * a hot key's view is refreshed before it goes stale, and drops keys with nothing pending or in
 * flight that were not used for S (bounded memory; a dropped view is marked dead under its
 * monitor, so no event is added to it afterwards).
 */
final class BufferingCounterStore extends BufferingStore<CounterStore, BufferingCounterStore.View>
    implements CounterStore {

  private static final long STALE = Long.MIN_VALUE;


  /**
   * A store over {@code engine}; {@code flusher} null means no periodic flush (tests call
   * {@link #flushRound()} and {@link #flush()} themselves).
   */
  BufferingCounterStore(String name, CounterStore engine, Buffering buffering,
      io.windowpane.internal.Periodic flusher) {
    super(name, buffering, engine, COUNTERS, View::new);
    start(flusher);
  }

  /** One key's state; every field guarded by the view's monitor. */
  static final class View extends KeyBuffers.Entry {
    long count;
    long readAt = STALE;
    long pending;
    long sent; // sequence of the last call sent
    long accepted; // sequence of the call whose answer is count
    final ArrayDeque<long[]> inFlight = new ArrayDeque<>(2); // {sequence, events}

    View(String key) {
      super(key);
    }

    @Override
    boolean hasPending() {
      return pending > 0;
    }

    @Override
    boolean hasInFlight() {
      return !inFlight.isEmpty();
    }

    boolean fresh(long now, long staleness) {
      return readAt != STALE && now - readAt <= staleness;
    }

    /** The count of the answered call plus every event of this node not in it. */
    long local() {
      long c = count + pending;
      for (long[] f : inFlight) {
        if (f[0] > accepted) {
          c += f[1];
        }
      }
      return c;
    }

    Send take(long more, long now) {
      long events = pending + more;
      pending = 0;
      long seq = ++sent;
      inFlight.add(new long[] {seq, events});
      return new Send(this, events, seq, now);
    }

    void answered(Send s) {
      inFlight.removeIf(f -> f[0] == s.seq);
    }
  }

  /** One call carrying {@code events} from {@code view}, sent at node time {@code at}. */
  private record Send(View view, long events, long seq, long at) {}

  /** What a call decided under the view's monitor: a local answer, or a call to make. */
  private record Step(boolean local, long answer, Send send, View view, long countSeq,
      boolean quiet, long at) {

    static Step local(long answer) {
      return new Step(true, answer, null, null, 0, false, 0);
    }
  }

  private Step addStep(String key, long n) {
    long now = clock.millis();
    return entries.with(key, now, v -> {
      if (v.fresh(now, staleness)) {
        v.pending += n;
        counters.local.increment();
        return Step.local(v.local());
      }
      counters.engine.increment();
      return new Step(false, 0, v.take(n, now), v, 0, false, now);
    });
  }

  /** Takes the engine's answer {@code c} to {@code s}; returns the caller's count. */
  private long answered(Send s, long c) {
    View v = s.view;
    counters.flushed(s.events);
    synchronized (v) {
      v.answered(s);
      if (s.seq > v.accepted) {
        v.accepted = s.seq;
        v.count = c;
        v.readAt = s.at;
      }
      return Math.max(c, v.local());
    }
  }

  /** {@code s} failed: its events are lost, except {@code callers} the caller is told about. */
  private void failed(Send s, long callers, Throwable cause) {
    View v = s.view;
    synchronized (v) {
      v.answered(s);
      v.readAt = STALE; // the next add asks the engine, and its caller sees the failure
    }
    long lost = s.events - callers;
    if (lost > 0) {
      counters.failed(name, v.key, lost, cause);
    }
  }

  @Override
  public long add(String key, long n) {
    Step step = addStep(key, n);
    if (step.local) {
      return step.answer;
    }
    long c;
    try {
      c = engine.add(key, step.send.events);
    } catch (RuntimeException e) {
      failed(step.send, n, e);
      throw e;
    }
    return answered(step.send, c);
  }

  @Override
  public CompletionStage<Long> addAsync(String key, long n) {
    Step step = addStep(key, n);
    if (step.local) {
      return CompletableFuture.completedFuture(step.answer);
    }
    return Stages.call(() -> engine.addAsync(key, step.send.events)).handle((c, e) -> {
      if (e != null) {
        Throwable cause = unwrap(e);
        failed(step.send, n, cause);
        throw cause instanceof RuntimeException ? (RuntimeException) cause
            : new CompletionException(cause);
      }
      return answered(step.send, c);
    });
  }

  @Override
  public void record(String key, long n) {
    entries.with(key, clock.millis(), v -> {
      v.pending += n;
      counters.local.increment();
      return null;
    });
  }

  private Step countStep(String key) {
    long now = clock.millis();
    return entries.with(key, now, v -> {
      if (v.fresh(now, staleness)) {
        counters.local.increment();
        return Step.local(v.local());
      }
      counters.engine.increment();
      return new Step(false, 0, null, v, v.sent, v.inFlight.isEmpty(), now);
    });
  }

  /** The engine counted {@code c} for a count started at {@code step.at}. */
  private long counted(Step step, long c) {
    View v = step.view;
    synchronized (v) {
      // the answer holds none of this node's events in doubt only if no call was in flight
      // at its start or sent since: then it becomes the view
      if (step.quiet && v.sent == step.countSeq && v.inFlight.isEmpty()) {
        v.count = c;
        v.readAt = step.at;
      }
      long own = v.pending;
      for (long[] f : v.inFlight) {
        own += f[1];
      }
      return c + own;
    }
  }

  @Override
  public long count(String key) {
    Step step = countStep(key);
    if (step.local) {
      return step.answer;
    }
    return counted(step, engine.count(key));
  }

  @Override
  public CompletionStage<Long> countAsync(String key) {
    Step step = countStep(key);
    if (step.local) {
      return CompletableFuture.completedFuture(step.answer);
    }
    return Stages.call(() -> engine.countAsync(key)).thenApply(c -> counted(step, c));
  }

  /**
   * {@link #add} for each key, in order; a key the engine refuses to create (memory pressure)
   * leaves the others recorded, and the batch fails with a refusal carrying their counts.
   */
  @Override
  public List<Long> addAll(List<String> keys, long n) {
    return Stages.itemsNow("addAll", keys, key -> add(key, n));
  }

  @Override
  public List<Long> countAll(List<String> keys) {
    List<Long> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      out.add(count(key));
    }
    return out;
  }

  @Override
  public CompletionStage<List<Long>> addAllAsync(List<String> keys, long n) {
    List<CompletableFuture<Long>> each = new ArrayList<>(keys.size());
    for (String key : keys) {
      each.add(Stages.call(() -> addAsync(key, n)));
    }
    return Stages.items("addAll", keys, each);
  }

  @Override
  public CompletionStage<List<Long>> countAllAsync(List<String> keys) {
    List<CompletableFuture<Long>> each = new ArrayList<>(keys.size());
    for (String key : keys) {
      each.add(countAsync(key).toCompletableFuture());
    }
    return joinAll(each);
  }

  private static CompletionStage<List<Long>> joinAll(List<CompletableFuture<Long>> each) {
    return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0]))
        .thenApply(x -> each.stream().map(CompletableFuture::join).toList());
  }

  @Override
  public CompletionStage<Void> replayAsync(String key, long n, long atMillis, String replayId) {
    return engine.replayAsync(key, n, atMillis, replayId);
  }

  /**
   * Event-time adds bypass the buffer: they go to the engine at once, whose answer is the
   * count (this node's view of the key catches up at its next refresh, within S).
   */
  @Override
  public CompletionStage<io.windowpane.spi.EventTimeResult> addAtAsync(String key, long n,
      long atMillis, long maxAheadMillis) {
    return engine.addAtAsync(key, n, atMillis, maxAheadMillis);
  }

  @Override
  public CompletionStage<List<io.windowpane.spi.EventTimeResult>> addAllAtAsync(
      List<String> keys, long n, long atMillis, long maxAheadMillis) {
    return engine.addAllAtAsync(keys, n, atMillis, maxAheadMillis);
  }

  /**
   * One round of the flusher: sends each key's pending events with {@code addAsync} (its answer
   * refreshes the view) and drops keys idle for S with nothing pending or in flight. Returns
   * the calls it started.
   */
  @Override
  public List<CompletableFuture<?>> flushRound() {
    long now = clock.millis();
    List<CompletableFuture<?>> started = new ArrayList<>();
    for (Send send : entries.round(now, staleness, v -> v.take(0, now))) {
      started.add(sendAsync(send)); // outside the view's monitor
    }
    return started;
  }

  private CompletableFuture<?> sendAsync(Send send) {
    CompletableFuture<Long> f = Stages.call(() -> engine.addAsync(send.view.key, send.events));
    flushing.add(f);
    f.whenComplete((c, e) -> {
      if (e != null) {
        failed(send, 0, unwrap(e));
      } else {
        answered(send, c);
      }
      flushing.remove(f);
    });
    return f;
  }

  static Throwable unwrap(Throwable e) {
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
