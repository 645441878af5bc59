package io.windowpane.internal.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;

/*
 * Design note: the keys of one counter or limiter.
 *
 * A ConcurrentHashMap from key to KeyState; lookups of existing keys allocate nothing. A state
 * idle for the window's expiry (W + r after its last recorded event) is logically gone at once:
 * the next access retires it and starts afresh, so no stale count is ever returned. Its memory is
 * returned by a sweep that operations run at most once per sweep interval (or cleanUp()).
 *
 * Bound. When inserting a key would pass maxKeys, the inserting thread sweeps expired keys and,
 * if the table is still full, evicts the keys idle longest: about 1/16 of the bound at once, so
 * the O(n log n) pass is amortized over many insertions. Eviction forgets a live key's history
 * (a limiter then allows it afresh): size maxKeys for the keys you expect to be active at once.
 * Only one thread makes room at a time; others insert meanwhile, so the table may pass the bound
 * by at most the number of concurrent inserting threads.
 */
final class KeyTable {

  private static final VarHandle NEXT_SWEEP;

  static {
    try {
      NEXT_SWEEP = MethodHandles.lookup().findVarHandle(KeyTable.class, "nextSweep", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final ConcurrentHashMap<String, KeyState> map = new ConcurrentHashMap<>();
  private final LongFunction<KeyState> factory;
  private final long expiryMillis;
  private final long maxKeys;
  private final long sweepIntervalMillis;
  private final AtomicBoolean makingRoom = new AtomicBoolean();
  @SuppressWarnings("unused") private volatile long nextSweep;

  KeyTable(LongFunction<KeyState> factory, long expiryMillis, long maxKeys,
      long sweepIntervalMillis, long now) {
    this.factory = factory;
    this.expiryMillis = expiryMillis;
    this.maxKeys = maxKeys;
    this.sweepIntervalMillis = sweepIntervalMillis;
    this.nextSweep = saturatedAdd(now, sweepIntervalMillis);
  }

  /** The live state of {@code key} for recording at {@code now}, created if absent. */
  KeyState forWrite(String key, long now) {
    maybeSweep(now);
    for (;;) {
      KeyState state = map.get(key);
      if (state == null) {
        state = insert(key, now);
      }
      long last = state.lastEvent();
      if (last != KeyState.RETIRED && now - last < expiryMillis) {
        return state;
      }
      if (last == KeyState.RETIRED || state.casLastEvent(last, KeyState.RETIRED)) {
        map.remove(key, state);
      }
    }
  }

  /** The live state of {@code key} at {@code now}, or null: never creates one. */
  KeyState forRead(String key, long now) {
    maybeSweep(now);
    KeyState state = map.get(key);
    if (state == null) {
      return null;
    }
    long last = state.lastEvent();
    if (last != KeyState.RETIRED && now - last < expiryMillis) {
      return state;
    }
    if (last == KeyState.RETIRED || state.casLastEvent(last, KeyState.RETIRED)) {
      map.remove(key, state);
    }
    return null;
  }

  /** Drops a retired state that a writer found after its operation. */
  void forget(String key, KeyState state) {
    map.remove(key, state);
  }

  private KeyState insert(String key, long now) {
    if (map.size() >= maxKeys) {
      makeRoom(now);
    }
    KeyState fresh = factory.apply(now);
    KeyState raced = map.putIfAbsent(key, fresh);
    return raced != null ? raced : fresh;
  }

  private void maybeSweep(long now) {
    long due = (long) NEXT_SWEEP.getOpaque(this);
    if (now >= due && NEXT_SWEEP.compareAndSet(this, due, saturatedAdd(now, sweepIntervalMillis))) {
      sweep(now);
    }
  }

  /** Removes every expired key now; returns how many. */
  int sweep(long now) {
    int removed = 0;
    for (Map.Entry<String, KeyState> e : map.entrySet()) {
      KeyState state = e.getValue();
      if (state.retireIfIdle(now, expiryMillis) || state.lastEvent() == KeyState.RETIRED) {
        if (map.remove(e.getKey(), state)) {
          removed++;
        }
      }
    }
    return removed;
  }

  private void makeRoom(long now) {
    if (!makingRoom.compareAndSet(false, true)) {
      return;
    }
    try {
      sweep(now);
      int size = map.size();
      long target = maxKeys - Math.max(1, maxKeys / 16);
      if (size < maxKeys) {
        return;
      }
      long[] lasts = new long[size];
      int n = 0;
      for (KeyState state : map.values()) {
        if (n == lasts.length) {
          break;
        }
        lasts[n++] = state.lastEvent();
      }
      Arrays.sort(lasts, 0, n);
      long evict = Math.min(n, size - target);
      long threshold = lasts[(int) Math.max(0, evict - 1)];
      long evicted = 0;
      for (Map.Entry<String, KeyState> e : map.entrySet()) {
        if (evicted >= evict) {
          break;
        }
        KeyState state = e.getValue();
        long last = state.lastEvent();
        if (last <= threshold && (last == KeyState.RETIRED || state.casLastEvent(last, KeyState.RETIRED))) {
          if (map.remove(e.getKey(), state)) {
            evicted++;
          }
        }
      }
    } finally {
      makingRoom.set(false);
    }
  }

  /** Keys held now, expired ones not yet swept included. */
  int size() {
    return map.size();
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }
}
