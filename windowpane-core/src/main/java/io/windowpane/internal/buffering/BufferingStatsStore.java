package io.windowpane.internal.buffering;

import io.windowpane.Buffering;
import io.windowpane.Summary;
import io.windowpane.internal.Stages;
import io.windowpane.spi.StatsStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A statistics window's store that buffers this node's values per key and sends them in
 * batches (see docs/leasing.md, "Counters and statistics: buffering"). S is the staleness bound.
 *
 * <p>Design: each key has a {@link Pending} buffer guarded by its own monitor: the values
 * recorded here and not yet sent, and the calls sent for the key and not yet answered. A record
 * appends (no I/O); reaching {@link Buffering#maxPending()} values starts a {@code recordAsync}
 * of the buffer at once; the flusher ({@link io.windowpane.internal.Periodic}) sends every key's buffer every S/2. Sends are
 * started under the key's monitor, so a summary that takes the monitor sees every value of this
 * node either still pending (it sends them) or in a call it then waits for: read-your-writes on
 * one node. A batch goes out in calls of at most {@value #MAX_CALL} values (the engine's batch
 * limit); a call that fails loses its values (counted), never resent. Keys idle for S with
 * nothing pending or in flight are dropped (marked dead under the monitor first).
 */
final class BufferingStatsStore extends BufferingStore<StatsStore, BufferingStatsStore.Pending>
    implements StatsStore {

  /** Most values in one engine call. */
  static final int MAX_CALL = Buffering.MAX_PENDING;

  private final int maxPending;

  /**
   * A store over {@code engine}; {@code flusher} null means no periodic flush (tests call
   * {@link #flushRound()} and {@link #flush()} themselves).
   */
  BufferingStatsStore(String name, StatsStore engine, Buffering buffering,
      io.windowpane.internal.Periodic flusher) {
    super(name, buffering, engine, STATS, Pending::new);
    this.maxPending = buffering.maxPending();
    start(flusher);
  }

  /** One key's buffer; every field guarded by its monitor. */
  static final class Pending extends KeyBuffers.Entry {
    double[] values = new double[16];
    int size;
    final List<CompletableFuture<?>> inFlight = new ArrayList<>(2);

    Pending(String key) {
      super(key);
    }

    @Override
    boolean hasPending() {
      return size > 0;
    }

    @Override
    boolean hasInFlight() {
      return !inFlight.isEmpty();
    }

    void append(double[] more) {
      if (size + more.length > values.length) {
        values = Arrays.copyOf(values, Math.max(values.length * 2, size + more.length));
      }
      System.arraycopy(more, 0, values, size, more.length);
      size += more.length;
    }
  }

  /** Sends {@code p}'s values; the caller holds {@code p}'s monitor. */
  private void sendLocked(Pending p, List<CompletableFuture<?>> started) {
    for (int from = 0; from < p.size; from += MAX_CALL) {
      double[] batch = Arrays.copyOfRange(p.values, from, Math.min(p.size, from + MAX_CALL));
      CompletableFuture<Void> f = Stages.call(() -> engine.recordAsync(p.key, batch));
      p.inFlight.add(f);
      flushing.add(f);
      CompletableFuture<Void> call = f;
      f.whenComplete((x, e) -> {
        if (e != null) {
          counters.failed(name, p.key, batch.length, BufferingCounterStore.unwrap(e));
        } else {
          counters.flushed(batch.length);
        }
        synchronized (p) {
          p.inFlight.remove(call);
        }
        flushing.remove(call);
      });
      if (started != null) {
        started.add(f);
      }
    }
    p.size = 0;
    if (p.values.length > 64) {
      p.values = new double[16]; // a burst's buffer is not kept
    }
  }

  @Override
  public void record(String key, double[] values) {
    entries.with(key, clock.millis(), p -> {
      p.append(values);
      counters.local.increment();
      if (p.size >= maxPending) {
        sendLocked(p, null);
      }
      return null;
    });
  }

  @Override
  public CompletionStage<Void> recordAsync(String key, double[] values) {
    record(key, values);
    return CompletableFuture.completedFuture(null);
  }

  /** Sends {@code key}'s pending values; returns every call for the key still in flight. */
  private List<CompletableFuture<?>> flushKey(String key) {
    Pending p = entries.get(key);
    if (p == null) {
      return List.of();
    }
    synchronized (p) {
      if (p.size > 0) {
        sendLocked(p, null);
      }
      return new ArrayList<>(p.inFlight);
    }
  }

  @Override
  public Summary summary(String key) {
    Buffered.awaitAll(flushKey(key));
    counters.engine.increment();
    return engine.summary(key);
  }

  @Override
  public CompletionStage<Summary> summaryAsync(String key) {
    List<CompletableFuture<?>> wait = flushKey(key);
    counters.engine.increment();
    return settled(wait).thenCompose(x -> engine.summaryAsync(key));
  }

  @Override
  public List<Summary> summaryAll(List<String> keys) {
    List<CompletableFuture<?>> wait = new ArrayList<>();
    for (String key : keys) {
      wait.addAll(flushKey(key));
    }
    Buffered.awaitAll(wait);
    counters.engine.increment();
    return engine.summaryAll(keys);
  }

  @Override
  public CompletionStage<List<Summary>> summaryAllAsync(List<String> keys) {
    List<CompletableFuture<?>> wait = new ArrayList<>();
    for (String key : keys) {
      wait.addAll(flushKey(key));
    }
    counters.engine.increment();
    return settled(wait).thenCompose(x -> engine.summaryAllAsync(keys));
  }

  /** Completes when every stage has, failed or not (failures were counted). */
  private static CompletableFuture<Void> settled(List<CompletableFuture<?>> stages) {
    return CompletableFuture.allOf(stages.stream()
        .map(f -> f.handle((x, e) -> null)).toArray(CompletableFuture<?>[]::new));
  }

  @Override
  public CompletionStage<Void> replayAsync(String key, double[] values, long atMillis,
      String replayId) {
    return engine.replayAsync(key, values, atMillis, replayId);
  }

  /** Event-time records bypass the buffer: they go to the engine at once. */
  @Override
  public CompletionStage<io.windowpane.spi.EventTimeResult> recordAtAsync(String key,
      double[] values, long atMillis, long maxAheadMillis) {
    return engine.recordAtAsync(key, values, atMillis, maxAheadMillis);
  }

  @Override
  public List<CompletionStage<io.windowpane.spi.EventTimeResult>> recordAllAtAsync(
      List<String> keys, List<double[]> values, long atMillis, long maxAheadMillis) {
    return engine.recordAllAtAsync(keys, values, atMillis, maxAheadMillis);
  }

  /**
   * One round of the flusher: sends each key's pending values and drops keys idle for S with
   * nothing pending or in flight. Returns the calls it started.
   */
  @Override
  public List<CompletableFuture<?>> flushRound() {
    List<CompletableFuture<?>> started = new ArrayList<>();
    entries.round(clock.millis(), staleness, p -> {
      sendLocked(p, started); // sent under the key's monitor: see the design note
      return null;
    });
    return started;
  }

}
