package io.windowpane;

import io.windowpane.spi.Checks;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One or more {@link Limit}s that a request must all satisfy, e.g. 10 per second AND 1,000 per
 * hour. A rate limiter decides a request against the whole quota atomically: either every limit
 * records the permits, or none does. Immutable.
 *
 * <p>At most {@value #MAX_LIMITS} limits. Limits whose resolutions are too far apart are refused
 * (the finest pane must be at least 1/{@value #MAX_PANE_SPREAD} of the longest expiry), because
 * a key is kept alive by its longest limit and the pane rings tag panes with 22 usable bits.
 *
 * <p>Top keys: a limiter over {@link #withTopKeys(int)} ranks its heaviest keys (by permits
 * allowed and by requests denied) over its first limit's window: see {@link RateLimiter#top}.
 */
public final class Quota {

  /** Most limits in one quota. */
  public static final int MAX_LIMITS = 8;

  /** Largest ratio of the quota's longest expiry to its finest resolution. */
  public static final long MAX_PANE_SPREAD = 1L << 22;

  private final List<Limit> limits;
  private final long smallestPermits;
  private final long expiryMillis;
  private final int topKeys;
  private final Leasing leasing; // null: off

  private Quota(List<Limit> limits, int topKeys) {
    this(limits, topKeys, null);
  }

  private Quota(List<Limit> limits, int topKeys, Leasing leasing) {
    this.limits = limits;
    this.topKeys = topKeys;
    this.leasing = leasing;
    long smallest = Long.MAX_VALUE;
    long expiry = 0;
    for (Limit limit : limits) {
      smallest = Math.min(smallest, limit.permits());
      expiry = Math.max(expiry, limit.window().expiryMillis());
    }
    this.smallestPermits = smallest;
    this.expiryMillis = expiry;
  }

  /** A quota of one or more limits. */
  public static Quota of(Limit first, Limit... more) {
    List<Limit> all = new ArrayList<>();
    all.add(Checks.notNull("first", first));
    for (Limit limit : Checks.notNull("more", more)) {
      all.add(Checks.notNull("limit", limit));
    }
    return of(all);
  }

  /** A quota of the given limits (1 to {@value #MAX_LIMITS}). */
  public static Quota of(List<Limit> limits) {
    Checks.notNull("limits", limits);
    Checks.inRange("number of limits", limits.size(), 1, MAX_LIMITS);
    List<Limit> copy = List.copyOf(limits);
    long expiry = 0;
    for (Limit limit : copy) {
      expiry = Math.max(expiry, limit.window().expiryMillis());
      if (limit.window().topKeys() != 0) {
        throw new IllegalArgumentException("top keys are set on the quota (Quota.withTopKeys), "
            + "not on a limit's window; " + limit + " has them");
      }
      if (limit.window().buffering().isPresent()) {
        throw new IllegalArgumentException("buffering is for counters and statistics windows; "
            + "a limiter's hot keys take leasing (Quota.withLeasing); " + limit + " has it");
      }
    }
    for (Limit limit : copy) {
      long r = limit.window().algorithm() == Algorithm.SLIDING_LOG
          ? expiry : limit.window().resolutionMillis();
      if (expiry / r >= MAX_PANE_SPREAD) {
        throw new IllegalArgumentException("limits must have resolutions within 1/"
            + MAX_PANE_SPREAD + " of the quota's longest expiry (" + expiry + " ms); "
            + limit + " has a resolution of " + r + " ms: use coarser panes");
      }
    }
    return new Quota(Collections.unmodifiableList(copy), 0);
  }

  /**
   * This quota with top keys on: {@link RateLimiter#top} and {@link RateLimiter#topDenied} rank
   * the limiter's heaviest keys over the first limit's window, with a Space-Saving sketch of
   * {@code counters} counters per pane (1 to {@value TopKey#MAX_COUNTERS}) for allowed permits
   * and another for denied requests; see {@link WindowSpec#withTopKeys(int)} for the bound and
   * the cost. Off by default.
   */
  public Quota withTopKeys(int counters) {
    Checks.inRange("counters", counters, 1, TopKey.MAX_COUNTERS);
    return new Quota(limits, counters, leasing);
  }

  /** {@link #withTopKeys(int)} with {@value TopKey#DEFAULT_COUNTERS} counters. */
  public Quota withTopKeys() {
    return withTopKeys(TopKey.DEFAULT_COUNTERS);
  }

  /**
   * This quota with hot-key leasing on (see {@link Leasing} and docs/leasing.md): a limiter over
   * it takes slices of a key's budget from its engine and answers from them on this node. The
   * engine must lease (Redis, etcd and the local engine do; a failover chain does not): on
   * one that cannot, the limiter logs it once and decides every request on the engine. Off by
   * default.
   */
  public Quota withLeasing(Leasing leasing) {
    return new Quota(limits, topKeys, Checks.notNull("leasing", leasing));
  }

  /** This quota with leasing off. */
  public Quota withoutLeasing() {
    return leasing == null ? this : new Quota(limits, topKeys, null);
  }

  /** The leasing options; empty when leasing is off (the default). */
  public java.util.Optional<Leasing> leasing() {
    return java.util.Optional.ofNullable(leasing);
  }

  /** Counters per pane of the top-keys sketches; 0 when top keys are off (the default). */
  public int topKeys() {
    return topKeys;
  }

  /** The limits, in the order given. */
  public List<Limit> limits() {
    return limits;
  }

  /** The smallest {@link Limit#permits()}: no request may ask for more. */
  public long smallestPermits() {
    return smallestPermits;
  }

  /** The longest {@link WindowSpec#expiryMillis()} among the limits. */
  public long expiryMillis() {
    return expiryMillis;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Quota && limits.equals(((Quota) o).limits)
        && topKeys == ((Quota) o).topKeys
        && java.util.Objects.equals(leasing, ((Quota) o).leasing);
  }

  @Override
  public int hashCode() {
    return limits.hashCode() + 31 * topKeys + (leasing == null ? 0 : 961 * leasing.hashCode());
  }

  @Override
  public String toString() {
    return "Quota" + limits + (topKeys == 0 ? "" : "(top keys " + topKeys + ")")
        + (leasing == null ? "" : "(" + leasing + ")");
  }
}
