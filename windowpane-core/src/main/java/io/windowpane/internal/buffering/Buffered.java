package io.windowpane.internal.buffering;

import io.windowpane.BufferStats;
import io.windowpane.Buffering;
import io.windowpane.MillisClock;
import io.windowpane.internal.Periodic;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;

/**
 * What a counter's and a statistics window's buffering stores share, and what a
 * {@code Windowpane} and a window need of them: the options, the counters, the sends in
 * flight, the periodic flush round, {@link #flush()} and {@link #close()}.
 */
public abstract class Buffered implements AutoCloseable {

  final String name;
  final long staleness;
  final MillisClock clock;
  final BufferCounters counters = new BufferCounters();
  final Set<CompletableFuture<?>> flushing = ConcurrentHashMap.newKeySet(); // sends in flight
  private volatile ScheduledFuture<?> task;

  Buffered(String name, Buffering buffering) {
    this.name = name;
    this.staleness = buffering.maxStalenessMillis();
    this.clock = buffering.clock();
  }

  /**
   * Starts the periodic flush round on {@code flusher} (null: none; tests call
   * {@link #flushRound()} and {@link #flush()} themselves). A subclass constructor calls it
   * last, so the round sees a fully built store.
   */
  final void start(Periodic flusher) {
    if (flusher != null) {
      task = flusher.every(Math.max(1, staleness / 2), this::flushRound);
    }
  }

  /** Sends what is pending now; the sends it started. */
  public abstract List<CompletableFuture<?>> flushRound();

  /**
   * Sends every pending event now and waits until those calls, and every flush already in
   * flight, have answered (each bounded by the engine's timeout). A failed call's events are
   * lost and counted, not thrown.
   */
  public void flush() {
    List<CompletableFuture<?>> wait = new ArrayList<>(flushRound());
    wait.addAll(flushing);
    awaitAll(wait);
  }

  /** The counters since the store was made. */
  public BufferStats stats() {
    return counters.snapshot();
  }

  /** Stops the periodic flush, then {@link #flush()}es. Does not close the engine's store. */
  @Override
  public void close() {
    ScheduledFuture<?> t = task;
    if (t != null) {
      t.cancel(false);
    }
    flush();
  }

  /** Waits for every stage, ignoring failures (their callbacks counted them). */
  static void awaitAll(Collection<? extends CompletableFuture<?>> stages) {
    for (CompletableFuture<?> f : stages) {
      try {
        f.join();
      } catch (RuntimeException e) {
        // counted as lost by the stage's own callback
      }
    }
  }
}
