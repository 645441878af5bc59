package io.windowpane.server.internal.rlqs;

import com.google.protobuf.Duration;
import com.google.protobuf.UInt32Value;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy.BlanketRule;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy.RequestsPerTimeUnit;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.envoyproxy.envoy.type.v3.TokenBucket;

/*
 * Design note. An assignment hands one Envoy an allowance: the most it may admit for a bucket
 * until its next report or the assignment's expiry, whichever is first. The allowance is the
 * stream's share of the room left,
 *
 *   room      R = max(0, L - U)          L the limit, U the fleet's allowed requests in the window
 *   share     f = min(1, max(d, 1) / max(D, 1))
 *                                        d this stream's requests (allowed + denied) over the
 *                                        last TTL, D the fleet's over the same span
 *   allowance A = max(1, floor(f * R))   when R > 0; a blanket DENY_ALL when R = 0
 *
 * so a bucket far from its limit gets allowances well above each Envoy's demand, one near it
 * small ones, and one at or over it a deny until the window frees room. A is at most R.
 *
 * Envoy spends an assignment as a token bucket that starts full: "q requests per time unit u"
 * lets through at most q + q*t/u requests in t, which over the time to live T is q*(1 + T/u).
 * The strategy is sized so that this is at most A: q = ceil((A + 1) * u / (u + T)) - 1, with the
 * smallest unit (second, minute, hour, day) that gives q >= 1. As a token bucket: max_tokens
 * ceil(A/2), the rest refilled over one T (A = 1: one token, refilled after T).
 *
 * What this bounds, and why, is in docs/envoy.md ("Overshoot"): the fleet's reported allowed
 * requests in any window are at most L + (n - 1) * A_max for n Envoys.
 */

/** One assignment: its kind, its allowance and the strategy sent to Envoy. Immutable. */
record RlqsAssignment(Kind kind, long allowance, RateLimitStrategy strategy, long ttlMillis) {

  enum Kind {
    REQUESTS_PER_TIME_UNIT("requests_per_time_unit"),
    TOKEN_BUCKET("token_bucket"),
    DENY_ALL("deny_all"),
    ABANDON("abandon");

    final String tag;

    Kind(String tag) {
      this.tag = tag;
    }
  }

  private static final RateLimitUnit[] UNITS = {RateLimitUnit.SECOND, RateLimitUnit.MINUTE,
      RateLimitUnit.HOUR, RateLimitUnit.DAY};
  private static final long[] UNIT_MILLIS = {1_000L, 60_000L, 3_600_000L, 86_400_000L};

  /**
   * The assignment for a stream whose demand over the last {@code ttlMillis} was
   * {@code ownDemand}, in a bucket of limit {@code limit} whose window holds {@code used} allowed
   * requests and whose fleet demand over the last {@code ttlMillis} was {@code fleetDemand}.
   */
  static RlqsAssignment of(long limit, long used, long ownDemand, long fleetDemand,
      long ttlMillis, boolean tokenBucket) {
    long room = Math.max(0, limit - used);
    if (room == 0) {
      return new RlqsAssignment(Kind.DENY_ALL, 0, RateLimitStrategy.newBuilder()
          .setBlanketRule(BlanketRule.DENY_ALL).build(), ttlMillis);
    }
    double share = Math.min(1.0, (double) Math.max(ownDemand, 1) / Math.max(fleetDemand, 1));
    long allowance = Math.max(1, Math.min(room, (long) Math.floor(share * room)));
    return tokenBucket ? tokenBucket(allowance, ttlMillis) : perTimeUnit(allowance, ttlMillis);
  }

  /**
   * Envoy's most admitted requests under "q per unit" over {@code ttlMillis}. No overflow: a
   * per-second q is at most an allowance (2^40) and unit + T at most 2^22 ms; a larger unit is
   * only chosen for allowances under T/1 s + 1, at most 3,601.
   */
  static long admitted(long q, long unitMillis, long ttlMillis) {
    return q * (unitMillis + ttlMillis) / unitMillis;
  }

  private static RlqsAssignment perTimeUnit(long allowance, long ttlMillis) {
    for (int i = 0; i < UNITS.length; i++) {
      long u = UNIT_MILLIS[i];
      long q = -Math.floorDiv(-(allowance + 1) * u, u + ttlMillis) - 1; // ceil(...) - 1
      if (q >= 1) {
        return new RlqsAssignment(Kind.REQUESTS_PER_TIME_UNIT, admitted(q, u, ttlMillis),
            RateLimitStrategy.newBuilder().setRequestsPerTimeUnit(RequestsPerTimeUnit
                .newBuilder().setRequestsPerTimeUnit(q).setTimeUnit(UNITS[i])).build(),
            ttlMillis);
      }
    }
    // Unreachable for T <= 1 h: one request per day admits at most 1 in T.
    throw new IllegalStateException("no unit fits allowance " + allowance + " over "
        + ttlMillis + " ms");
  }

  private static RlqsAssignment tokenBucket(long allowance, long ttlMillis) {
    long cap = 0xFFFF_FFFFL; // max_tokens and tokens_per_fill are uint32
    long max = Math.min(cap, (allowance + 1) / 2);
    long fill = Math.min(cap, allowance - max);
    long fillMillis = ttlMillis;
    if (fill == 0) { // allowance 1: one token, the next one only after the assignment expired
      fill = 1;
      fillMillis = ttlMillis + 1;
    }
    TokenBucket bucket = TokenBucket.newBuilder().setMaxTokens((int) max)
        .setTokensPerFill(UInt32Value.of((int) fill))
        .setFillInterval(duration(fillMillis)).build();
    long admitted = max + (fillMillis == ttlMillis ? fill : 0);
    return new RlqsAssignment(Kind.TOKEN_BUCKET, admitted,
        RateLimitStrategy.newBuilder().setTokenBucket(bucket).build(), ttlMillis);
  }

  static Duration duration(long millis) {
    return Duration.newBuilder().setSeconds(millis / 1000)
        .setNanos((int) (millis % 1000) * 1_000_000).build();
  }
}
