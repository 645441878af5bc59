package io.windowpane.testkit.conformance;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A plain, exact, single-threaded model of the window semantics (DESIGN sections 1-2), written
 * for obviousness, not speed: it keeps every event and recomputes counts from the definitions.
 * The randomized conformance test drives an engine and this model with the same operations and
 * clock steps and compares every answer. Assumes a clock that never steps backwards.
 */
public final class ReferenceModel {

  private final Map<String, List<long[]>> events = new HashMap<>();

  /** Records {@code n} events of {@code key} at {@code t}. */
  public void record(String key, long t, long n) {
    events.computeIfAbsent(key, k -> new ArrayList<>()).add(new long[] {t, n});
  }

  /** The count of {@code key} at {@code t} under {@code spec}, from the definitions. */
  public long count(String key, WindowSpec spec, long t) {
    return count(events.getOrDefault(key, List.of()), spec, t);
  }

  /** The count of a list of {time, n} events at {@code t}. */
  public static long count(List<long[]> events, WindowSpec spec, long t) {
    long w = spec.windowMillis();
    switch (spec.algorithm()) {
      case SLIDING_LOG: {
        long sum = 0;
        for (long[] e : events) {
          if (e[0] > t - w && e[0] <= t) {
            sum += e[1];
          }
        }
        return sum;
      }
      case SLIDING_PANES: {
        long r = spec.resolutionMillis();
        long p = Math.floorDiv(t, r);
        long sum = 0;
        for (long[] e : events) {
          long q = Math.floorDiv(e[0], r);
          if (q > p - spec.panes() && q <= p) {
            sum += e[1];
          }
        }
        return sum;
      }
      default: {
        long win = Math.floorDiv(t, w);
        long current = 0;
        long previous = 0;
        for (long[] e : events) {
          long q = Math.floorDiv(e[0], w);
          if (q == win) {
            current += e[1];
          } else if (q == win - 1) {
            previous += e[1];
          }
        }
        long elapsed = t - win * w;
        BigInteger[] qr = BigInteger.valueOf(previous).multiply(BigInteger.valueOf(w - elapsed))
            .divideAndRemainder(BigInteger.valueOf(w));
        long weighted = qr[0].longValueExact() + (qr[1].signum() == 0 ? 0 : 1);
        return current + weighted;
      }
    }
  }

  /** Whether {@code permits} fit every limit of {@code quota} for {@code key} at {@code t}. */
  public boolean fits(String key, Quota quota, long t, long permits) {
    for (Limit limit : quota.limits()) {
      if (count(prefixed(key, limit), limit.window(), t) + permits > limit.permits()) {
        return false;
      }
    }
    return true;
  }

  private static String prefixed(String key, Limit limit) {
    return limit.name() + "|" + limit.window() + "|" + key;
  }

  /**
   * The decision the contract requires for {@code tryAcquire(key, permits)} at {@code t}, and
   * records it when allowed. {@code deniedBy} is the limit with the longest wait (the first
   * such in quota order); {@code retryAfter} is the smallest wait after which the request fits.
   */
  public Decision tryAcquire(String key, Quota quota, long t, long permits) {
    List<Limit> limits = quota.limits();
    if (fits(key, quota, t, permits)) {
      for (Limit limit : limits) {
        record(prefixed(key, limit), t, permits);
      }
      return Decision.allowed(remaining(key, quota, t));
    }
    long wait = -1;
    Limit by = null;
    for (Limit limit : limits) {
      long d = waitFor(key, limit, t, permits);
      if (d > wait) {
        wait = d;
        by = limit;
      }
    }
    return Decision.denied(remaining(key, quota, t), by, wait);
  }

  private long remaining(String key, Quota quota, long t) {
    long remaining = Long.MAX_VALUE;
    for (Limit limit : quota.limits()) {
      remaining = Math.min(remaining,
          Math.max(0, limit.permits() - count(prefixed(key, limit), limit.window(), t)));
    }
    return remaining;
  }

  /** Smallest d >= 0 with the limit fitting at t + d (binary search: counts only fall). */
  private long waitFor(String key, Limit limit, long t, long permits) {
    String k = prefixed(key, limit);
    if (count(k, limit.window(), t) + permits <= limit.permits()) {
      return 0;
    }
    long lo = 0; // does not fit
    long hi = 3 * limit.window().windowMillis(); // fits: everything has left the window
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      if (count(k, limit.window(), t + mid) + permits <= limit.permits()) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return hi;
  }
}
