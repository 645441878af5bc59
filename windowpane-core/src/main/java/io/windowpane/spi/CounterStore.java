package io.windowpane.spi;

import java.util.ArrayList;
import io.windowpane.TopKey;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The engine side of a {@link io.windowpane.WindowCounter}. Arguments are validated by the
 * caller. The batch and async defaults run the blocking forms one by one; engines with a network
 * in between override them with pipelined, non-blocking versions.
 */
public interface CounterStore {

  /** Records {@code n} events now; returns the window count including them. */
  long add(String key, long n);

  /**
   * {@link #add} without the count: records {@code n} events now. Engines where reading the
   * count back costs something override it (the local engine stripes a hot key's records); the
   * default calls {@link #add}.
   */
  default void record(String key, long n) {
    add(key, n);
  }

  /** Returns the window count now. */
  long count(String key);

  /** Whether the engine still holds state for {@code key} (false once it has expired). */
  boolean holdsState(String key);

  /** Drops expired state now instead of waiting for the engine's own schedule. */
  default void cleanUp() {}

  /**
   * An optional capability: the {@code n} keys with the most events over the current window,
   * for a counter whose spec turned top keys on ({@link io.windowpane.WindowSpec#topKeys()} > 0;
   * the caller checks {@code 1 <= n <= topKeys}). Ordered by {@link TopKey#count()} descending,
   * ties by key; each count an upper bound of the key's window count, {@code count - maxError}
   * a lower bound, and {@code maxError <= N / topKeys} for N events in the window; every key
   * whose window count passes {@code N / topKeys} is among the ranked keys. The window seen may
   * be the pane window of the engine's own sketch panes (state which). Empty when this engine
   * cannot rank keys: the default.
   *
   * <p>For engine authors: a server-side implementation keeps one sketch per pane (e.g. a hash
   * of key to count and error per pane, with the pane's smallest count) and merges the live
   * panes' sketches as {@code TopMerge} does, in one call.
   */
  default Optional<List<TopKey>> topKeys(int n) {
    return Optional.empty();
  }

  /** {@link #add} for each key, in order. */
  default List<Long> addAll(List<String> keys, long n) {
    List<Long> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      out.add(add(key, n));
    }
    return out;
  }

  /** {@link #count} for each key, in order. */
  default List<Long> countAll(List<String> keys) {
    List<Long> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      out.add(count(key));
    }
    return out;
  }

  /** {@link #add} without blocking the caller. */
  default CompletionStage<Long> addAsync(String key, long n) {
    return Async.call(() -> add(key, n));
  }

  /** {@link #count} without blocking the caller. */
  default CompletionStage<Long> countAsync(String key) {
    return Async.call(() -> count(key));
  }

  /** {@link #addAll} without blocking the caller. */
  default CompletionStage<List<Long>> addAllAsync(List<String> keys, long n) {
    return Async.call(() -> addAll(keys, n));
  }

  /** {@link #countAll} without blocking the caller. */
  default CompletionStage<List<Long>> countAllAsync(List<String> keys) {
    return Async.call(() -> countAll(keys));
  }

  /**
   * Replays many batches, each as {@link #replayAsync} would (same contract, atomic and
   * idempotent per batch, not per call): an engine with a network in between sends them in as
   * few calls as it can. The stage fails if any batch failed; batches that were applied stay
   * applied, and their ids make sending them again harmless. The default sends each batch with
   * {@code replayAsync}, all at once.
   */
  default CompletionStage<Void> replayAllAsync(java.util.List<ReplayBatch> batches) {
    return CounterStore.Async.each(batches, b -> replayAsync(b.key(), b.count(), b.atMillis(), b.replayId()));
  }

  /**
   * Records {@code n} events that happened at {@code atMillis}, without deciding anything: what a
   * failover chain replays into this engine for the events its fallback took (see
   * {@link Engine#replays()} for the contract). The default refuses: the stage fails with
   * {@link UnsupportedOperationException}.
   */
  default CompletionStage<Void> replayAsync(String key, long n, long atMillis, String replayId) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this engine takes no replayed events"));
  }

  /**
   * Records {@code n} events that happened at {@code atMillis} (event time), judged and placed
   * as {@link EventTimeResult} states, atomically; the result carries the window count including
   * them. Never blocks the caller. The default refuses: the stage fails with
   * {@link UnsupportedOperationException}.
   */
  default CompletionStage<EventTimeResult> addAtAsync(String key, long n, long atMillis,
      long maxAheadMillis) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException("this engine takes no event-time adds"));
  }

  /**
   * {@link #addAtAsync} for each key, in order, every key at the same {@code atMillis}; each key
   * is judged on its own. The default calls {@code addAtAsync} per key, all at once.
   */
  default CompletionStage<List<EventTimeResult>> addAllAtAsync(List<String> keys, long n,
      long atMillis, long maxAheadMillis) {
    List<CompletableFuture<EventTimeResult>> sent = new ArrayList<>(keys.size());
    for (String key : keys) {
      sent.add(Async.call(() -> addAtAsync(key, n, atMillis, maxAheadMillis))
          .thenCompose(x -> x).toCompletableFuture());
    }
    // a key refused for memory pressure fails its item only: the others stay recorded, and the
    // refusal carries their results (KeyCreationRefusedException#answers)
    return io.windowpane.internal.Stages.items("addAll", keys, sent);
  }

  /** Helpers for stores whose blocking calls never wait on I/O (the local engine). */
  final class Async {
    private Async() {}

    /**
     * {@code one} for every batch, all at once; completes when all have, exceptionally if any
     * failed (a throw counts as a failed stage).
     */
    public static CompletionStage<Void> each(java.util.List<ReplayBatch> batches,
        java.util.function.Function<ReplayBatch, CompletionStage<Void>> one) {
      CompletableFuture<?>[] sent = new CompletableFuture<?>[batches.size()];
      for (int i = 0; i < sent.length; i++) {
        ReplayBatch b = batches.get(i);
        sent[i] = call(() -> one.apply(b)).thenCompose(x -> x).toCompletableFuture();
      }
      return CompletableFuture.allOf(sent);
    }

    /** Runs {@code call} now and returns its outcome as a completed stage. */
    public static <T> CompletionStage<T> call(java.util.function.Supplier<T> call) {
      try {
        return CompletableFuture.completedFuture(call.get());
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
  }
}
