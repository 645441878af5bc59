package io.windowpane.server.internal.rls;

/*
 * Design note. envoyproxy/ratelimit's statistics are dashboards' contract, so one descriptor's
 * hits are split between within_limit, near_limit, over_limit and shadow_mode by its rule
 * (src/limiter/base_limiter.go: GetResponseDescriptorStatus, checkOverLimitThreshold,
 * checkNearLimitThreshold, increaseShadowModeStats), from three numbers: the limit L, the
 * window's count before the request ("used", its limitBeforeIncrease) and the hits h.
 *
 *   near threshold N = floor(float32(L) * 0.8f)   (float arithmetic, as the reference does)
 *   allowed:  within += h;  if used + h > N:  near += used >= N ? h : used + h - N
 *   over:     if used >= L:  over += h
 *             else:          over += used + h - L;  near += L - max(N, used)
 *   shadow (over, answered OK): shadow += the same as over
 *
 * So one request's hits are split at the thresholds: limit 20 with 15 used and 7 hits counts
 * 2 over and 4 near (the hits from 16 to 20); limit 8 with 5 used and 2 hits counts 1 near.
 *
 * Where windowpane's count differs from the reference's: the reference's fixed window keeps
 * counting hits it denies, windowpane records nothing for a denied request, so "used" here is
 * the sliding window's count (over hits excluded). Two cases have no reference figure:
 *   - used unknown (a request over without the engine, on an engine that cannot peek): all
 *     hits over, none near;
 *   - denied although used + h <= L (the request's descriptors under the same rule and key
 *     together exceed the limit; the reference, counting them one by one, would let this one
 *     through): all hits over, none near, since windowpane denied them.
 * docs/envoy.md's compatibility table states both.
 */

/** How one descriptor's hits count in the rate limit service's statistics. */
record RlsHitSplit(long within, long near, long over, long shadow) {

  /** The reference's default NEAR_LIMIT_RATIO, a float32 there and here. */
  static final float NEAR_LIMIT_RATIO = 0.8f;

  /**
   * The split of {@code hits} on a rule of {@code limit} with {@code used} counted before them
   * ({@code -1}: not known); {@code over} when the limit said no, {@code shadow} when a
   * {@code shadow_mode} rule let them through anyway.
   */
  static RlsHitSplit of(long limit, long used, long hits, boolean over, boolean shadow) {
    long nearThreshold = nearThreshold(limit);
    if (!over) {
      long after = used + hits;
      long near = after <= nearThreshold ? 0 : used >= nearThreshold ? hits : after - nearThreshold;
      return new RlsHitSplit(hits, near, 0, 0);
    }
    if (used < 0 || used >= limit || used + hits <= limit) {
      return new RlsHitSplit(0, 0, hits, shadow ? hits : 0);
    }
    long overHits = used + hits - limit;
    return new RlsHitSplit(0, limit - Math.max(nearThreshold, used), overHits,
        shadow ? overHits : 0);
  }

  /** floor(float32(limit) * 0.8f): requests before a rule counts as near its limit. */
  static long nearThreshold(long limit) {
    return (long) Math.floor((float) limit * NEAR_LIMIT_RATIO);
  }
}
