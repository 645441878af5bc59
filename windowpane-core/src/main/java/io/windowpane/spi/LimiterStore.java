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
   * {@link #peek} without blocking the caller. The default runs {@link #peek} on the calling
   * thread: an engine whose peek waits for a backend overrides it.
   */
  default CompletionStage<Optional<Decision>> peekAsync(String key, long permits) {
    return CounterStore.Async.call(() -> peek(key, permits));
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

  /**
   * An optional capability: takes a slice of {@code key}'s budget in one atomic step, for a
   * holder that will spend it without asking the engine again (hot-key leasing, and requests
   * that must be all-or-nothing across several limiters).
   *
   * <p>Grants the largest {@code g <= maxPermits} that fits every limit of the quota now, as
   * long as {@code g >= minPermits}, and records {@code g} in every limit at the engine's time
   * {@code t}, with exactly the effect of {@code tryAcquire(key, g)} at {@code t} (top keys
   * included). When fewer than {@code minPermits} fit it records nothing and grants
   * 0 with the denial {@code tryAcquire(key, minPermits)} would give. Arguments are validated
   * by the caller: {@code 1 <= minPermits <= maxPermits <= quota.smallestPermits()}.
   *
   * <p>Empty when this engine cannot lease: the default. An engine that leases also implements
   * {@link #releaseAsync}.
   */
  default Optional<Grant> lease(String key, long minPermits, long maxPermits) {
    return Optional.empty();
  }

  /** {@link #lease} without blocking the caller; completes with empty when it would be. */
  default CompletionStage<Optional<Grant>> leaseAsync(String key, long minPermits,
      long maxPermits) {
    return CounterStore.Async.call(() -> lease(key, minPermits, maxPermits));
  }

  /**
   * Gives back {@code permits} of a {@link Grant} recorded at {@code atMillis} (the grant's
   * {@code atMillis}) that its holder did not spend: in every limit of the quota they are taken
   * out of the pane, fixed window or log position where the grant put them, as if they had never
   * been recorded, so they are room again for every caller at once.
   *
   * <ul>
   *   <li>A limit whose window no longer holds {@code atMillis} is left unchanged: those permits
   *       have aged out already, and there is nothing to give back.
   *   <li>Never takes out more than {@code permits} from a limit, never leaves a count below 0.
   *   <li>Idempotent per {@code releaseId} (the replay id rules of
   *       {@link Engine#replays()}): a release whose id the engine has seen for the same key
   *       within the window's expiry changes nothing, so a caller may retry one that timed out.
   *   <li>Atomic per call; never blocks the caller; fails the stage with a
   *       {@link io.windowpane.WindowpaneException} within the engine's timeouts.
   * </ul>
   *
   * <p>Arguments are validated by the caller: {@code 1 <= permits <= quota.smallestPermits()}.
   * The default refuses: the stage fails with {@link UnsupportedOperationException}.
   */
  default CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
      String releaseId) {
    return java.util.concurrent.CompletableFuture.failedFuture(
        new UnsupportedOperationException("this engine does not lease"));
  }

  /**
   * {@link #releaseAsync(String, long, long, String)} for permits of {@code grant}, recorded at
   * its {@link Grant#atMillis()}: the form every holder of a grant should use, because it lets a
   * failover chain send the release to the member that granted ({@link Grant#engine()}), never
   * to another. The default releases at {@code grant.atMillis()}.
   */
  default CompletionStage<Void> releaseAsync(String key, long permits, Grant grant,
      String releaseId) {
    return releaseAsync(key, permits, grant.atMillis(), releaseId);
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
