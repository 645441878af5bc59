package io.windowpane.internal.local;

import java.util.concurrent.ConcurrentHashMap;

/*
 * Design note: the release ids a local limiter has seen, so that a release is idempotent per id
 * and key (the replay id rules). An id is kept while a window of the quota may still hold the
 * grant's instant, min(atMillis, now) + the quota's expiry (W + r of the longest window, 2W for a
 * weighted one): after that a release of that grant changes nothing anyway, so a repeat of the
 * id needs no memory. Memory is bounded by the releases made within one expiry; a sweep drops
 * the ids past their time whenever the map has doubled since the last one (amortized O(1) per
 * release), and on cleanUp(). Releases are rare next to decisions (one per lease), so a
 * ConcurrentHashMap and one small String per release cost nothing on the decision path.
 */
/** The release ids one local limiter has seen, per key, until they can no longer matter. */
final class ReleaseIds {

  private static final int FIRST_SWEEP = 1024;

  private final ConcurrentHashMap<String, Long> until = new ConcurrentHashMap<>();
  private final long expiryMillis;
  private volatile int sweepAt = FIRST_SWEEP;

  ReleaseIds(long expiryMillis) {
    this.expiryMillis = expiryMillis;
  }

  /**
   * True the first time {@code id} is seen for {@code key} (and remembers it), false for a
   * repeat while it is remembered. Ids never hold '|', so "id|key" is unambiguous.
   */
  boolean firstTime(String key, String id, long atMillis, long now) {
    long keep = saturatedAdd(Math.min(atMillis, now), expiryMillis);
    if (until.putIfAbsent(id + '|' + key, keep) != null) {
      return false;
    }
    if (until.size() >= sweepAt) {
      sweep(now);
      sweepAt = Math.max(FIRST_SWEEP, 2 * until.size());
    }
    return true;
  }

  /** Forgets the ids that can no longer matter at {@code now}. */
  void sweep(long now) {
    until.values().removeIf(keep -> keep <= now);
  }

  /** Ids remembered now, for tests. */
  int size() {
    return until.size();
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }
}
