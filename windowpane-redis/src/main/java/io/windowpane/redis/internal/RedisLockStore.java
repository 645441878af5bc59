package io.windowpane.redis.internal;

import io.windowpane.MillisClock;
import io.windowpane.spi.LockStore;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;

/*
 * Design note. A lock is two keys in one hash slot: the lock itself, wp1:l:{name} (a hash: format,
 * holder token, logical expiry; PEXPIRE'd with it), and its fencing counter wp1:l:{name}:f (a
 * string, never expiring). wp_lock takes the lock if no live holder has it and increments the
 * counter in the same atomic call, so every holder's token is greater than the one before, also
 * after an expiry; wp_renew and wp_unlock act only for the holder's own token. Each is one FCALL
 * (or EVALSHA) round trip; the Java side keeps no state per lock. The time argument is the
 * engine's (empty: the server's TIME), as for every other function, so a manual clock in tests
 * moves lock expiry too.
 */

/** Distributed locks on Redis: {@code wp_lock}, {@code wp_renew}, {@code wp_unlock}. */
final class RedisLockStore implements LockStore {

  private final RedisSeam seam;
  private final TimeArg time;
  private final MillisClock clock;

  RedisLockStore(RedisSeam seam, TimeArg time, MillisClock clock) {
    this.seam = seam;
    this.time = time;
    this.clock = clock;
  }

  /** The lock's key: {@code wp1:l:{name}}; its fencing counter is this + {@code ":f"}. */
  static String key(String name) {
    return "wp1:l:{" + name + "}";
  }

  @Override
  public MillisClock clock() {
    return clock;
  }

  @Override
  public CompletionStage<OptionalLong> tryAcquire(String name, String token, long ttlMillis) {
    String lock = key(name);
    return Calls.translated(seam.callIntegers("wp_lock", new String[] {lock, lock + ":f"},
        new String[] {time.now(), token, Long.toString(ttlMillis)}), "tryLock")
        .thenApply(reply -> reply.get(0) == 1 ? OptionalLong.of(reply.get(1))
            : OptionalLong.empty());
  }

  @Override
  public CompletionStage<Boolean> renew(String name, String token, long ttlMillis) {
    return Calls.translated(seam.callInteger("wp_renew", new String[] {key(name)},
        new String[] {time.now(), token, Long.toString(ttlMillis)}), "renew lock")
        .thenApply(reply -> reply == 1);
  }

  @Override
  public CompletionStage<Boolean> release(String name, String token) {
    return Calls.translated(seam.callInteger("wp_unlock", new String[] {key(name)},
        new String[] {time.now(), token}), "release lock")
        .thenApply(reply -> reply == 1);
  }
}
