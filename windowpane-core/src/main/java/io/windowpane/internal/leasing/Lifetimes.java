package io.windowpane.internal.leasing;

import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;

/*
 * How long a lease granted at the engine's time t0 may be spent, on the engine's clock: until the
 * end of the pane of t0 for SLIDING_PANES, of the fixed window of t0 for SLIDING_WEIGHTED (both
 * aligned on the epoch, as every engine aligns them), and the configured log lifetime D for
 * SLIDING_LOG; for a quota, the earliest over its limits. Spent inside that span, a permit lands
 * in the same pane or fixed window it would have been recorded in without leasing, which is why
 * panes and weighted windows admit exactly what they admit without it.
 */
final class Lifetimes {

  private final long[] periods; // per limit: r or W, or -min(D, W) for the log
  private final long shortest; // the shortest period or log lifetime: the sweep's scale

  Lifetimes(Quota quota, long logLifetimeMillis) {
    periods = new long[quota.limits().size()];
    long min = Long.MAX_VALUE;
    for (int i = 0; i < periods.length; i++) {
      Limit limit = quota.limits().get(i);
      WindowSpec w = limit.window();
      switch (w.algorithm()) {
        case SLIDING_LOG:
          periods[i] = -Math.min(logLifetimeMillis, w.windowMillis());
          min = Math.min(min, -periods[i]);
          break;
        case SLIDING_WEIGHTED:
          periods[i] = w.windowMillis();
          min = Math.min(min, periods[i]);
          break;
        default:
          periods[i] = w.resolutionMillis();
          min = Math.min(min, periods[i]);
      }
    }
    shortest = min;
  }

  /**
   * Milliseconds of the engine's clock a grant made at {@code t0} may still be spent: to the
   * pane's or fixed window's end less 1 ms (the engine read {@code t0} truncated to whole
   * milliseconds, so up to 1 ms of the pane may already have passed), or the log lifetime; 0:
   * none. The log's lifetime is capped at its window.
   */
  long at(long t0) {
    long min = Long.MAX_VALUE;
    for (int i = 0; i < periods.length; i++) {
      long p = periods[i];
      long life = p < 0 ? -p : p - Math.floorMod(t0, p) - 1;
      min = Math.min(min, life);
    }
    return min;
  }

  /** The shortest pane, fixed window or log lifetime of the quota. */
  long shortest() {
    return shortest;
  }
}
