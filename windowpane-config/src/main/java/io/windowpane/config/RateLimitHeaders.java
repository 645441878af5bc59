package io.windowpane.config;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import java.util.StringJoiner;

/*
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-09 and later):
 *
 *   RateLimit-Policy: "per-second";q=10;w=1, "per-hour";q=1000;w=3600
 *   RateLimit: "per-second";r=3;t=1
 *
 * The policy lists every limit of the quota (w in whole seconds, rounded up). RateLimit names one
 * of them: the limit that denied, or the only limit of a one-limit quota. A decision reports only
 * the smallest remaining over the limits, not which limit holds it, so for an allowed request on
 * a quota of several limits the item is keyed by the limiter's own name, with r the smallest
 * remaining and t the time until every limit is back to full.
 *
 * Reset. An allowed request was just recorded at `now`, so it is the last event to leave each
 * window, and the quota is full again exactly when it leaves:
 *   log        now + W             (an event at t counts in (s - W, s] until s = t + W)
 *   panes      now + W - (now mod r)  (its pane p = floor(now / r) leaves when pane p + P starts)
 *   weighted   (floor(now / W) + 2) W (its fixed window is "previous" until then, weight -> 0)
 * For a denied request nothing was recorded and the newest counted event is at or before `now`,
 * so the same figure is an upper bound. `now` is the service's clock when the engine is called;
 * on Redis the server's clock decides, so the figure is off by the clock skew between the two.
 */
public final class RateLimitHeaders {

  private RateLimitHeaders() {}

  /** The RateLimit-Policy value of {@code quota}. */
  public static String policy(Quota quota) {
    StringJoiner items = new StringJoiner(", ");
    for (Limit limit : quota.limits()) {
      items.add('"' + limit.name() + "\";q=" + limit.permits() + ";w="
          + ceilSeconds(limit.window().windowMillis()));
    }
    return items.toString();
  }

  /** Milliseconds from {@code now} until {@code limit} holds nothing recorded at or before it. */
  public static long resetMillis(Limit limit, long now) {
    WindowSpec window = limit.window();
    long w = window.windowMillis();
    switch (window.algorithm()) {
      case SLIDING_LOG:
        return w;
      case SLIDING_PANES:
        return w - Math.floorMod(now, window.resolutionMillis());
      case SLIDING_WEIGHTED:
        return (Math.floorDiv(now, w) + 2) * w - now;
      default:
        throw new IllegalStateException("unknown algorithm " + window.algorithm());
    }
  }

  /** The reset of the whole quota: when every limit is back to full. */
  public static long resetMillis(Quota quota, long now) {
    long reset = 0;
    for (Limit limit : quota.limits()) {
      reset = Math.max(reset, resetMillis(limit, now));
    }
    return reset;
  }

  /** The RateLimit value for {@code decision}. */
  public static String current(String limiter, Quota quota, Decision decision, long now) {
    String name;
    long reset;
    if (!decision.allowed()) {
      Limit by = decision.deniedBy().orElseThrow();
      name = by.name();
      reset = resetMillis(by, now);
    } else if (quota.limits().size() == 1) {
      name = quota.limits().get(0).name();
      reset = resetMillis(quota.limits().get(0), now);
    } else {
      name = limiter;
      reset = resetMillis(quota, now);
    }
    return '"' + name + "\";r=" + decision.remaining() + ";t=" + ceilSeconds(reset);
  }

  /** Whole seconds, rounded up. */
  public static long ceilSeconds(long millis) {
    return Math.floorDiv(millis + 999, 1000);
  }
}
