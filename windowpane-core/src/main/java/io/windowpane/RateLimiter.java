package io.windowpane;

import io.windowpane.internal.leasing.LeasingLimiterStore;
import io.windowpane.spi.Checks;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A sliding-window rate limiter over a {@link Quota}. Thread-safe.
 *
 * <p>{@link #tryAcquire} is all-or-nothing across the quota's limits: when allowed, the permits
 * are recorded in every limit; when denied, nothing is recorded anywhere. A denial is a normal
 * {@link Decision}, never an exception.
 *
 * <p>Arguments are checked before anything happens: keys are 1 to 256 characters and
 * {@code permits} is 1 to the quota's smallest limit (a request larger than some limit could
 * never be allowed). A bad argument throws {@link IllegalArgumentException}, also from the async
 * forms (synchronously). Backend failures throw (or complete the stage with) a
 * {@link WindowpaneException}.
 *
 * <p>Its permits may change while it runs ({@link Windowpane#reconfigure}): every call reads the
 * quota in force once, and is decided against it; a call that started before the change
 * finishes under the old permits. Every key keeps its counts across the change.
 */
public final class RateLimiter {

  /** The quota in force and the stores that decide it, swapped whole by a reconfiguration. */
  record Bound(Quota quota, LimiterStore store, LimiterStore engineStore) {}

  private final String name;
  private volatile Bound bound;

  RateLimiter(String name, Quota quota, LimiterStore store, LimiterStore engineStore) {
    this.name = name;
    this.bound = new Bound(quota, store, engineStore);
  }

  /** The quota and stores in force. */
  Bound bound() {
    return bound;
  }

  /** Puts {@code next} in force for every call that starts after this one. */
  void rebind(Bound next) {
    this.bound = next;
  }

  /** Decides one permit for {@code key}. */
  public Decision tryAcquire(String key) {
    return bound.store().tryAcquire(Checks.key(key), 1);
  }

  /** Decides {@code permits} for {@code key}, recording them in every limit when allowed. */
  public Decision tryAcquire(String key, long permits) {
    Bound b = bound;
    return b.store().tryAcquire(Checks.key(key), checkPermits(b, permits));
  }

  /**
   * The same decision and effect as {@link #tryAcquire(String, long)}, answering only whether
   * it was allowed: on the local engine this builds no object at all.
   */
  public boolean tryConsume(String key, long permits) {
    Bound b = bound;
    return b.store().tryConsume(Checks.key(key), checkPermits(b, permits));
  }

  /**
   * {@link #tryAcquire(String, long)} for each key, in order; each key is decided on its own. A
   * store short of memory (the Redis memory guard) decides the items on existing keys and
   * refuses the new ones: a failover chain sends only those to its next member (or answers them
   * with its {@link OnFailure} policy); elsewhere this throws
   * {@link KeyCreationRefusedException} with every item's decision in
   * {@link KeyCreationRefusedException#answers()} ({@code null} for the refused items).
   */
  public List<Decision> tryAcquireAll(List<String> keys, long permits) {
    Bound b = bound;
    checkPermits(b, permits);
    return b.store().tryAcquireAll(Checks.keys(keys), permits);
  }

  /** {@link #tryAcquire(String, long)} without blocking the caller. */
  public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
    Bound b = bound;
    return b.store().tryAcquireAsync(Checks.key(key), checkPermits(b, permits));
  }

  /** {@link #tryAcquireAll} without blocking the caller. */
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<String> keys, long permits) {
    Bound b = bound;
    checkPermits(b, permits);
    return b.store().tryAcquireAllAsync(Checks.keys(keys), permits);
  }

  /**
   * Takes the largest slice of {@code key}'s budget from {@code minPermits} to
   * {@code maxPermits} that fits every limit now, in one atomic step, for a holder that spends it
   * without asking again (see {@link LimiterStore#lease} for the contract): the grant is
   * recorded in every limit exactly like {@code tryAcquire(key, permits)}, at the grant's
   * {@link Grant#atMillis()}. When fewer than {@code minPermits} fit, nothing is recorded and the
   * grant is 0 permits with the denial {@code tryAcquire(key, minPermits)} would give. Give back
   * what is not spent with {@link #releaseAsync(String, long, Grant, String)}. Empty when the
   * engine cannot lease (docs/guarantees.md says which engines can).
   *
   * @throws IllegalArgumentException unless {@code 1 <= minPermits <= maxPermits <=} the quota's
   *     smallest limit, or for a bad key
   */
  public Optional<Grant> lease(String key, long minPermits, long maxPermits) {
    Bound b = bound;
    Checks.key(key);
    checkSlice(b, minPermits, maxPermits);
    return b.store().lease(key, minPermits, maxPermits);
  }

  /** {@link #lease} without blocking the caller; arguments are checked synchronously. */
  public CompletionStage<Optional<Grant>> leaseAsync(String key, long minPermits,
      long maxPermits) {
    Bound b = bound;
    Checks.key(key);
    checkSlice(b, minPermits, maxPermits);
    return b.store().leaseAsync(key, minPermits, maxPermits);
  }

  /**
   * Gives back {@code permits} of a {@link Grant} made at {@code atMillis} that its holder did
   * not spend: they are taken out of the pane, fixed window or log position of {@code atMillis}
   * in every limit whose window still holds it, never leaving a count below 0, so they are room
   * again at once (see {@link LimiterStore#releaseAsync} for the contract). Idempotent per
   * {@code releaseId}: a retried release with the same id changes nothing. The stage fails with
   * {@link UnsupportedOperationException} on an engine that cannot lease, and on a failover
   * chain, which must know the member that granted: use
   * {@link #releaseAsync(String, long, Grant, String)} there.
   *
   * @throws IllegalArgumentException unless {@code 1 <= permits <=} the quota's smallest limit
   *     and {@code releaseId} is 1 to 64 characters of {@code [A-Za-z0-9_.:-]}, or for a bad key
   */
  public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
      String releaseId) {
    Bound b = bound;
    Checks.key(key);
    checkPermits(b, permits);
    Checks.id("releaseId", releaseId);
    return b.store().releaseAsync(key, permits, atMillis, releaseId);
  }

  /**
   * Gives back {@code permits} of {@code grant} that its holder did not spend, as
   * {@link #releaseAsync(String, long, long, String)} does at {@code grant.atMillis()}; through a
   * failover chain the release goes to the member that granted ({@link Grant#engine()}), and
   * is dropped (counted in {@link Failover.Stats#droppedReleases()}) while that member is down:
   * the permits then age out of its window. The form to use for grants from
   * {@link #lease}.
   *
   * @throws IllegalArgumentException unless {@code 1 <= permits <=} the quota's smallest limit
   *     and {@code releaseId} is 1 to 64 characters of {@code [A-Za-z0-9_.:-]}, or for a bad key
   *     or a null grant
   */
  public CompletionStage<Void> releaseAsync(String key, long permits, Grant grant,
      String releaseId) {
    Bound b = bound;
    Checks.key(key);
    checkPermits(b, permits);
    Checks.notNull("grant", grant);
    Checks.id("releaseId", releaseId);
    return b.store().releaseAsync(key, permits, grant, releaseId);
  }

  private static void checkSlice(Bound b, long minPermits, long maxPermits) {
    Checks.inRange("minPermits", minPermits, 1, b.quota().smallestPermits());
    Checks.inRange("maxPermits", maxPermits, minPermits, b.quota().smallestPermits());
  }

  /**
   * {@code permits} of {@code key} on this limiter, as one member of an all-or-nothing group
   * ({@link Windowpane#tryAcquireAllOrNothing}); validated at once, recording nothing.
   */
  public PermitRequest request(String key, long permits) {
    return new PermitRequest(this, key, permits);
  }

  /** The engine's own store, without leasing, for {@link Windowpane#tryAcquireAllOrNothing}. */
  LimiterStore engineStore() {
    return bound.engineStore();
  }

  /**
   * What {@link #tryAcquire(String)} would answer now for one permit: see
   * {@link #peek(String, long)}.
   */
  public Optional<Decision> peek(String key) {
    return bound.store().peek(Checks.key(key), 1);
  }

  /**
   * What {@link #tryAcquire(String, long)} would answer now, without recording anything or
   * creating state for the key: allowed with the remaining the permits would leave, or denied
   * with the limit, remaining and retry-after a denial would carry. Another thread may change
   * the answer before a real acquire; a peek followed by a tryAcquire is not atomic. Empty when
   * the engine cannot answer without recording (the local engine can; Redis and etcd do not
   * yet).
   */
  public Optional<Decision> peek(String key, long permits) {
    Bound b = bound;
    return b.store().peek(Checks.key(key), checkPermits(b, permits));
  }

  /** {@link #peek(String, long)} without blocking the caller. */
  public CompletionStage<Optional<Decision>> peekAsync(String key, long permits) {
    Bound b = bound;
    return b.store().peekAsync(Checks.key(key), checkPermits(b, permits));
  }

  /**
   * The {@code n} keys that were allowed the most permits over the first limit's window, most
   * first, for a quota with {@link Quota#withTopKeys(int) top keys} on: each
   * {@link TopKey#count()} is an upper bound of the key's permits in the window and
   * {@code count - maxError} a lower bound, with {@code maxError <= N / k} (N permits allowed in
   * the window, k the quota's counters); every key above N / k is ranked (see docs/statistics.md
   * for the measured error). {@code n} is 1 to the quota's counters. Empty when top keys are off
   * or the engine cannot rank keys (only the local engine can, for now).
   */
  public Optional<List<TopKey>> top(int n) {
    Bound b = bound;
    return b.quota().topKeys() == 0 ? checkOff(n) : b.store().topKeys(checkTop(b, n), false);
  }

  /**
   * {@link #top(int)} ranked by requests denied over the first limit's window (a denied request
   * counts 1, whatever its permits): who is being limited right now.
   */
  public Optional<List<TopKey>> topDenied(int n) {
    Bound b = bound;
    return b.quota().topKeys() == 0 ? checkOff(n) : b.store().topKeys(checkTop(b, n), true);
  }

  private static int checkTop(Bound b, int n) {
    return (int) Checks.inRange("n", n, 1, b.quota().topKeys());
  }

  static <T> Optional<T> checkOff(int n) {
    Checks.inRange("n", n, 1, TopKey.MAX_COUNTERS);
    return Optional.empty();
  }

  /**
   * The leasing counters of this limiter (leases taken, permits returned, local hit ratio),
   * for a quota with {@link Quota#withLeasing leasing} on; empty otherwise.
   */
  public Optional<LeaseStats> leaseStats() {
    LimiterStore store = bound.store();
    return store instanceof LeasingLimiterStore
        ? Optional.of(((LeasingLimiterStore) store).stats()) : Optional.empty();
  }

  /** Whether the engine still holds state for {@code key}. */
  public boolean holdsState(String key) {
    return bound.store().holdsState(Checks.key(key));
  }

  /** Drops expired state now. */
  public void cleanUp() {
    bound.store().cleanUp();
  }

  /** The name that namespaces this limiter's keys. */
  public String name() {
    return name;
  }

  /** The quota in force: the latest one {@link Windowpane#reconfigure} set, if any. */
  public Quota quota() {
    return bound.quota();
  }

  private static long checkPermits(Bound b, long permits) {
    return Checks.inRange("permits", permits, 1, b.quota().smallestPermits());
  }

  @Override
  public String toString() {
    return "RateLimiter[" + name + ", " + bound.quota() + "]";
  }
}
