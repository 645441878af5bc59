package io.windowpane.spi;

import io.windowpane.MillisClock;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;

/**
 * The engine side of {@link io.windowpane.DistributedLock}: a named lock held under a token for
 * a time to live, with a fencing counter per name. Everything else (leases, the watchdog,
 * retries with backoff, deadlines) is done once, in core, over these three calls.
 *
 * <p>Contract for implementors (the conformance suite's {@code LockConformance} checks it):
 * <ul>
 *   <li>Each call is atomic in the backend: two {@link #tryAcquire} calls on a free lock never
 *       both succeed.
 *   <li>A lock taken or renewed at time {@code t} by the store's expiry clock is free from
 *       {@code t + ttlMillis} on, unless renewed before.
 *   <li>The fencing token returned by {@link #tryAcquire} is {@code >= 1} and greater than every
 *       token handed out before for the same {@code name}, by any client, also after the lock
 *       expired; it is never reused.
 *   <li>{@link #renew} and {@link #release} act only if {@code token} holds the lock now (compare
 *       and set, never an unconditional delete), and answer whether it did.
 *   <li>Arguments are validated by the caller: {@code name} as a lock name, {@code token} 1 to
 *       64 characters, {@code ttlMillis} within {@link io.windowpane.LockOptions}' range.
 *   <li>Calls never block the caller; failures complete the stage with a
 *       {@link io.windowpane.WindowpaneException} within the engine's timeouts.
 * </ul>
 */
public interface LockStore {

  /**
   * A clock whose differences measure elapsed time as the store's expiry does: the engine's
   * clock where the engine passes its own time, else a monotonic clock of this process. Holders
   * read it before each call, so a lease is believed held no longer than the store keeps it.
   */
  MillisClock clock();

  /**
   * Takes {@code name} for {@code token} for {@code ttlMillis} if it is free; returns the new
   * fencing token, or empty if another token holds it.
   */
  CompletionStage<OptionalLong> tryAcquire(String name, String token, long ttlMillis);

  /** If {@code token} holds {@code name}, extends it to {@code ttlMillis} from now: true. */
  CompletionStage<Boolean> renew(String name, String token, long ttlMillis);

  /** If {@code token} holds {@code name}, frees it: true. Otherwise changes nothing: false. */
  CompletionStage<Boolean> release(String name, String token);
}
