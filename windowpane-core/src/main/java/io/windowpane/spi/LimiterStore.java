package io.windowpane.spi;

import io.windowpane.Decision;
import io.windowpane.TopKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The engine side of a {@link io.windowpane.RateLimiter} over one quota. Arguments are validated
 * by the caller: keys are well formed and {@code 1 <= permits <= quota.smallestPermits()}.
 *
 * <p>{@link #tryAcquire} is all-or-nothing across the limits of the quota: a denied request
 * records nothing in any limit.
 */
public interface LimiterStore {

  /** Decides a request for {@code permits}, recording them in every limit when allowed. */
  Decision tryAcquire(String key, long permits);

  /** The same decision and effect as {@link #tryAcquire}, without building a {@link Decision}. */
  default boolean tryConsume(String key, long permits) {
    return tryAcquire(key, permits).allowed();
  }

  /** Whether the engine still holds state for {@code key} (false once it has expired). */
  boolean holdsState(String key);

  /** Drops expired state now instead of waiting for the engine's own schedule. */
  default void cleanUp() {}

  /**
   * An optional capability: what {@link #tryAcquire} would answer now for {@code permits},
   * recording nothing and creating no state (allowed with the remaining it would leave, or
   * denied with the limit, remaining and retryAfter it would give). Empty when this engine
   * cannot answer without recording: the default.
   */
  default Optional<Decision> peek(String key, long permits) {
    return Optional.empty();
  }

  /**
   * An optional capability: the {@code n} keys with the most permits allowed ({@code denied}
   * false) or the most requests denied ({@code denied} true) over the quota's first limit's
   * window, for a quota that turned top keys on ({@link io.windowpane.Quota#topKeys()} > 0).
   * Same contract as {@link CounterStore#topKeys(int)}. Empty when this engine cannot rank
   * keys: the default.
   */
  default Optional<List<TopKey>> topKeys(int n, boolean denied) {
    return Optional.empty();
  }

  /** {@link #tryAcquire} for each key, in order; each key is decided on its own. */
  default List<Decision> tryAcquireAll(List<String> keys, long permits) {
    List<Decision> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      out.add(tryAcquire(key, permits));
    }
    return out;
  }

  /**
   * Records {@code permits} taken at {@code atMillis} in every limit of the quota, whatever room
   * is left (another engine already allowed them): what a failover chain replays into this
   * engine (see {@link Engine#replays()} for the contract). The default refuses: the stage fails
   * with {@link UnsupportedOperationException}.
   */
  default CompletionStage<Void> replayAsync(String key, long permits, long atMillis,
      String replayId) {
    return java.util.concurrent.CompletableFuture.failedFuture(
        new UnsupportedOperationException("this engine takes no replayed events"));
  }

  /** {@link #tryAcquire} without blocking the caller. */
  default CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
    return CounterStore.Async.call(() -> tryAcquire(key, permits));
  }

  /** {@link #tryAcquireAll} without blocking the caller. */
  default CompletionStage<List<Decision>> tryAcquireAllAsync(List<String> keys, long permits) {
    return CounterStore.Async.call(() -> tryAcquireAll(keys, permits));
  }
}
