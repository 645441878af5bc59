package io.windowpane.internal.local;

import io.windowpane.MillisClock;
import io.windowpane.spi.LockStore;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/*
 * Design note. The reference semantics of locks, in the simplest form that is obviously right:
 * one small state per lock name (holder token, expiry by the engine's clock, fencing counter),
 * changed under that state's monitor. Locks are taken at most a few times per second per name in
 * any sane use, so a monitor per name costs nothing that matters, and a lock-free version would
 * have three fields to change together. A lock taken at t with ttl d is free from t + d on (the
 * expiry is read from the clock on every call: no timer). States are never removed: the fencing
 * counter of a name must outlive its holders, and there is one state per lock name, which the
 * Windowpane keeps anyway.
 */

/** The local engine's locks: one monitor-guarded state per lock name. */
final class LocalLockStore implements LockStore {

  private static final class State {
    String holder; // null when free
    long expiresAt;
    long fence;
  }

  private final MillisClock clock;
  private final ConcurrentMap<String, State> states = new ConcurrentHashMap<>();

  LocalLockStore(MillisClock clock) {
    this.clock = clock;
  }

  @Override
  public MillisClock clock() {
    return clock;
  }

  @Override
  public CompletionStage<OptionalLong> tryAcquire(String name, String token, long ttlMillis) {
    long now = clock.millis();
    State s = states.computeIfAbsent(name, n -> new State());
    synchronized (s) {
      if (held(s, now)) {
        return CompletableFuture.completedFuture(OptionalLong.empty());
      }
      s.holder = token;
      s.expiresAt = saturatedAdd(now, ttlMillis);
      s.fence++;
      return CompletableFuture.completedFuture(OptionalLong.of(s.fence));
    }
  }

  @Override
  public CompletionStage<Boolean> renew(String name, String token, long ttlMillis) {
    long now = clock.millis();
    State s = states.get(name);
    if (s == null) {
      return CompletableFuture.completedFuture(false);
    }
    synchronized (s) {
      boolean mine = held(s, now) && token.equals(s.holder);
      if (mine) {
        s.expiresAt = saturatedAdd(now, ttlMillis);
      }
      return CompletableFuture.completedFuture(mine);
    }
  }

  @Override
  public CompletionStage<Boolean> release(String name, String token) {
    long now = clock.millis();
    State s = states.get(name);
    if (s == null) {
      return CompletableFuture.completedFuture(false);
    }
    synchronized (s) {
      boolean mine = held(s, now) && token.equals(s.holder);
      if (mine) {
        s.holder = null;
      }
      return CompletableFuture.completedFuture(mine);
    }
  }

  private static boolean held(State s, long now) {
    return s.holder != null && now < s.expiresAt;
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
