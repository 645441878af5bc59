package io.windowpane.bench.redis;

import io.windowpane.Algorithm;
import io.windowpane.Limit;
import io.windowpane.WindowSpec;
import io.lettuce.core.ScoredValue;
import java.math.BigInteger;
import java.util.List;

/**
 * {@link LockModeEngine}'s window arithmetic over the events read from a sorted set: each member
 * is {@code <unique id>:<n>} scored with its time. Counts follow the window model's definitions
 * (docs/window-model.md) for every algorithm, so lock mode answers as the functions do.
 */
final class SortedSetWindows {

  private final long[] times;
  private final long[] counts;

  SortedSetWindows(List<ScoredValue<String>> events) {
    times = new long[events.size()];
    counts = new long[events.size()];
    for (int i = 0; i < times.length; i++) {
      ScoredValue<String> e = events.get(i);
      times[i] = (long) e.getScore();
      counts[i] = Long.parseLong(e.getValue().substring(e.getValue().lastIndexOf(':') + 1));
    }
  }

  /**
   * How far back events of {@code spec} are kept: as far as a count looks (W, or 2W for a
   * weighted window) and at least the logical expiry (W + r), so that a key holds state exactly
   * as long as with the functions.
   */
  static long horizon(WindowSpec spec) {
    long reach = spec.algorithm() == Algorithm.SLIDING_WEIGHTED ? 2 * spec.windowMillis()
        : spec.windowMillis();
    return Math.max(reach, spec.expiryMillis());
  }

  /** The count at {@code t}. */
  long count(WindowSpec spec, long t) {
    long w = spec.windowMillis();
    switch (spec.algorithm()) {
      case SLIDING_LOG:
        return sum(t - w + 1, t);
      case SLIDING_PANES: {
        long r = spec.resolutionMillis();
        return sum((Math.floorDiv(t, r) - spec.panes() + 1) * r, t);
      }
      default: {
        long start = Math.floorDiv(t, w) * w;
        long previous = sum(start - w, start - 1);
        return sum(start, t) + ceilScaled(previous, w - (t - start), w);
      }
    }
  }

  /** The sum of n over events with from <= time <= to. */
  private long sum(long from, long to) {
    long sum = 0;
    for (int i = 0; i < times.length; i++) {
      if (times[i] >= from && times[i] <= to) {
        sum += counts[i];
      }
    }
    return sum;
  }

  /** ceil(a * b / c) for non-negative a, b and positive c, without overflow. */
  private static long ceilScaled(long a, long b, long c) {
    BigInteger[] qr = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b))
        .divideAndRemainder(BigInteger.valueOf(c));
    return qr[0].longValueExact() + (qr[1].signum() == 0 ? 0 : 1);
  }

  /**
   * The smallest wait after which {@code permits} fit {@code limit} if nothing else is recorded:
   * counts only fall as time passes, so a binary search over [0, 3W] finds it.
   */
  long waitMillis(Limit limit, long t, long permits) {
    WindowSpec spec = limit.window();
    if (count(spec, t) + permits <= limit.permits()) {
      return 0;
    }
    long low = 0;
    long high = 3 * spec.windowMillis();
    while (high - low > 1) {
      long mid = low + (high - low) / 2;
      if (count(spec, t + mid) + permits <= limit.permits()) {
        high = mid;
      } else {
        low = mid;
      }
    }
    return high;
  }
}
