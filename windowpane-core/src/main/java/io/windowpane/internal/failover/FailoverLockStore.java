package io.windowpane.internal.failover;

import io.windowpane.Failover.Health;
import io.windowpane.MillisClock;
import io.windowpane.WindowpaneException;
import io.windowpane.spi.LockStore;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The first member's locks, failing closed while it is not UP: no fallback grants a lock,
 * because another node may still reach the first member and hold the same lock there.
 */
final class FailoverLockStore implements LockStore {

  private final Member first;
  private final LockStore store;

  FailoverLockStore(Member first, LockStore store) {
    this.first = first;
    this.store = store;
  }

  @Override
  public MillisClock clock() {
    return store.clock();
  }

  @Override
  public CompletionStage<OptionalLong> tryAcquire(String name, String token, long ttlMillis) {
    CompletableFuture<OptionalLong> closed = closedIfDown();
    return closed != null ? closed : store.tryAcquire(name, token, ttlMillis);
  }

  @Override
  public CompletionStage<Boolean> renew(String name, String token, long ttlMillis) {
    CompletableFuture<Boolean> closed = closedIfDown();
    return closed != null ? closed : store.renew(name, token, ttlMillis);
  }

  /** Always tried on the first member: releasing is safe whatever its health. */
  @Override
  public CompletionStage<Boolean> release(String name, String token) {
    return store.release(name, token);
  }

  private <T> CompletableFuture<T> closedIfDown() {
    Health h = first.health;
    return h == Health.UP ? null : CompletableFuture.failedFuture(new WindowpaneException(
        "locks fail closed while " + first.name + " is " + h + " (no fallback grants locks)"));
  }
}
