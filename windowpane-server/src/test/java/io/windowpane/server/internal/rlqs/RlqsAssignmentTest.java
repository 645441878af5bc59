package io.windowpane.server.internal.rlqs;

import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.type.v3.RateLimitStrategy;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy.BlanketRule;
import io.windowpane.Limit;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Assignment sizing against an independent reading of what Envoy admits under a strategy. */
class RlqsAssignmentTest {

  /** Most requests Envoy admits over {@code millis} from a full bucket under {@code s}. */
  static long admits(RateLimitStrategy s, long millis) {
    if (s.hasBlanketRule()) {
      return s.getBlanketRule() == BlanketRule.DENY_ALL ? 0 : Long.MAX_VALUE;
    }
    if (s.hasRequestsPerTimeUnit()) {
      long q = s.getRequestsPerTimeUnit().getRequestsPerTimeUnit();
      long u;
      switch (s.getRequestsPerTimeUnit().getTimeUnit()) {
        case SECOND: u = 1_000; break;
        case MINUTE: u = 60_000; break;
        case HOUR: u = 3_600_000; break;
        case DAY: u = 86_400_000; break;
        default: throw new AssertionError(s);
      }
      return q + Math.multiplyExact(q, millis) / u;
    }
    var b = s.getTokenBucket();
    long interval = b.getFillInterval().getSeconds() * 1000
        + b.getFillInterval().getNanos() / 1_000_000;
    return Integer.toUnsignedLong(b.getMaxTokens())
        + Integer.toUnsignedLong(b.getTokensPerFill().getValue()) * millis / interval;
  }

  @Test
  void anyAssignment_admitsAtMostItsAllowance_whichIsAtMostTheRoom_andAtLeastOneWhenRoomIsLeft() {
    SplittableRandom random = new SplittableRandom(29);
    for (int i = 0; i < 200_000; i++) {
      long limit = random.nextBoolean() ? 1 + random.nextLong(1_000)
          : 1 + random.nextLong(Limit.MAX_PERMITS);
      long used = random.nextLong(limit + limit / 4 + 1);
      long fleet = random.nextLong(1 + random.nextLong(1_000_000));
      long own = fleet == 0 ? 0 : random.nextLong(fleet + 1);
      long ttl = 100 * (10 + random.nextLong(36_000 - 10 + 1));
      boolean tokenBucket = random.nextBoolean();
      RlqsAssignment a = RlqsAssignment.of(limit, used, own, fleet, ttl, tokenBucket);
      long room = Math.max(0, limit - used);
      String at = limit + "/" + used + "/" + own + "/" + fleet + "/" + ttl + "/" + tokenBucket;
      assertThat(admits(a.strategy(), ttl)).as(at).isEqualTo(a.allowance());
      assertThat(a.allowance()).as(at).isLessThanOrEqualTo(room);
      if (room == 0) {
        assertThat(a.kind()).as(at).isEqualTo(RlqsAssignment.Kind.DENY_ALL);
      } else {
        assertThat(a.allowance()).as(at).isGreaterThanOrEqualTo(1);
      }
    }
  }

  @Test
  void farFromTheLimit_generous_nearIt_small_overIt_denyAll() {
    // One Envoy of two with equal demand, T = 10 s.
    RlqsAssignment far = RlqsAssignment.of(10_000, 0, 100, 200, 10_000, false);
    RlqsAssignment near = RlqsAssignment.of(10_000, 9_900, 100, 200, 10_000, false);
    RlqsAssignment over = RlqsAssignment.of(10_000, 10_001, 100, 200, 10_000, false);
    assertThat(far.allowance()).isBetween(4_900L, 5_000L);
    assertThat(far.strategy().getRequestsPerTimeUnit().getRequestsPerTimeUnit()).isEqualTo(454);
    assertThat(near.allowance()).isBetween(40L, 50L);
    assertThat(over.strategy().getBlanketRule()).isEqualTo(BlanketRule.DENY_ALL);
    // A share too small for one request per second goes per minute.
    RlqsAssignment tiny = RlqsAssignment.of(100, 95, 1, 1_000, 10_000, false);
    assertThat(tiny.allowance()).isEqualTo(1);
    assertThat(tiny.strategy().getRequestsPerTimeUnit().getTimeUnit().name())
        .isEqualTo("MINUTE");
  }
}
