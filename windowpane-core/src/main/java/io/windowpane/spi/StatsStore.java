package io.windowpane.spi;

import io.windowpane.Summary;
import io.windowpane.TopKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The engine side of a {@link io.windowpane.WindowStats}. Arguments are validated by the caller:
 * keys are well formed, values finite, batches 1 to {@code 10,000} long.
 *
 * <p>{@link #record} of several values is atomic: all of them are recorded at the same instant,
 * or (an exact window that would pass its bound) none.
 */
public interface StatsStore {

  /** Records {@code values} now, all at the same instant. */
  void record(String key, double[] values);

  /** Records one value now; the default wraps it in an array. */
  default void record(String key, double value) {
    record(key, new double[] {value});
  }

  /** The window's statistics now. */
  Summary summary(String key);

  /** Whether the engine still holds state for {@code key} (false once it has expired). */
  boolean holdsState(String key);

  /** Drops expired state now instead of waiting for the engine's own schedule. */
  default void cleanUp() {}

  /**
   * An optional capability: the {@code n} keys that recorded the most values over the current
   * window (each value counts 1), for a window whose spec turned top keys on
   * ({@link io.windowpane.StatsSpec#topKeys()} > 0). Same contract as
   * {@link CounterStore#topKeys(int)}. Empty when this engine cannot rank keys: the default.
   */
  default Optional<List<TopKey>> topKeys(int n) {
    return Optional.empty();
  }

  /** {@link #summary} for each key, in order. */
  default List<Summary> summaryAll(List<String> keys) {
    List<Summary> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      out.add(summary(key));
    }
    return out;
  }

  /**
   * Replays many batches, each as {@link #replayAsync} would (same contract, atomic and
   * idempotent per batch, not per call): an engine with a network in between sends them in as
   * few calls as it can. The stage fails if any batch failed; batches that were applied stay
   * applied, and their ids make sending them again harmless. The default sends each batch with
   * {@code replayAsync}, all at once.
   */
  default CompletionStage<Void> replayAllAsync(java.util.List<ReplayBatch> batches) {
    return CounterStore.Async.each(batches, b -> replayAsync(b.key(), b.values(), b.atMillis(), b.replayId()));
  }

  /**
   * Records {@code values} observed at {@code atMillis}: what a failover chain replays into this
   * engine (see {@link Engine#replays()} for the contract). The default refuses: the stage fails
   * with {@link UnsupportedOperationException}.
   */
  default CompletionStage<Void> replayAsync(String key, double[] values, long atMillis,
      String replayId) {
    return java.util.concurrent.CompletableFuture.failedFuture(
        new UnsupportedOperationException("this engine takes no replayed events"));
  }

  /** {@link #record} without blocking the caller. */
  default CompletionStage<Void> recordAsync(String key, double[] values) {
    return CounterStore.Async.call(() -> {
      record(key, values);
      return null;
    });
  }

  /**
   * Records {@code values.get(i)} under {@code keys.get(i)} now, for every i: independent
   * records (a key may come more than once; its records apply in order), one stage per item,
   * in order. Each stage completes when its item is recorded or fails alone (an exact window
   * past its bound: {@link io.windowpane.CapacityExceededException}); a failure of the engine
   * call fails the items it carried. The default records each item with {@link #recordAsync};
   * an engine that can sends the batch in fewer calls (Redis: one per node).
   */
  default List<CompletionStage<Void>> recordAllAsync(List<String> keys, List<double[]> values) {
    List<CompletionStage<Void>> out = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      out.add(recordAsync(keys.get(i), values.get(i)));
    }
    return out;
  }

  /**
   * Records {@code values} observed at {@code atMillis} (event time), all at that instant,
   * judged and placed as {@link EventTimeResult} states (its count is 0), atomically. Never
   * blocks the caller. The default refuses: the stage fails with
   * {@link UnsupportedOperationException}.
   */
  default CompletionStage<EventTimeResult> recordAtAsync(String key, double[] values,
      long atMillis, long maxAheadMillis) {
    return java.util.concurrent.CompletableFuture.failedFuture(
        new UnsupportedOperationException("this engine takes no event-time records"));
  }

  /**
   * {@link #recordAllAsync} at event time {@code atMillis}: one stage per item, in order, each
   * judged on its own. The default calls {@link #recordAtAsync} per item.
   */
  default List<CompletionStage<EventTimeResult>> recordAllAtAsync(List<String> keys,
      List<double[]> values, long atMillis, long maxAheadMillis) {
    List<CompletionStage<EventTimeResult>> out = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      double[] v = values.get(i);
      out.add(CounterStore.Async.call(() -> recordAtAsync(key, v, atMillis, maxAheadMillis))
          .thenCompose(x -> x));
    }
    return out;
  }

  /** {@link #summary} without blocking the caller. */
  default CompletionStage<Summary> summaryAsync(String key) {
    return CounterStore.Async.call(() -> summary(key));
  }

  /** {@link #summaryAll} without blocking the caller. */
  default CompletionStage<List<Summary>> summaryAllAsync(List<String> keys) {
    return CounterStore.Async.call(() -> summaryAll(keys));
  }
}
