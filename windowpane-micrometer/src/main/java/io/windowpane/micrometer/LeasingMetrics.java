package io.windowpane.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.windowpane.LeaseStats;
import io.windowpane.RateLimiter;
import java.util.function.ToDoubleFunction;

/**
 * The hot-key leasing meters of one limiter with leasing on (docs/leasing.md), each reading
 * {@link RateLimiter#leaseStats()} when scraped, so nothing samples or pushes in between. Tagged
 * {@code limiter}:
 *
 * <ul>
 *   <li>{@code windowpane.leasing.leases}: lease calls answered with a grant;
 *   <li>{@code windowpane.leasing.permits{kind=leased|returned}}: permits granted by those
 *       calls, and given back unspent;
 *   <li>{@code windowpane.leasing.returns}: release calls sent, and
 *       {@code windowpane.leasing.returns.failed}: those that failed (their permits stay
 *       counted until the window lets them go);
 *   <li>{@code windowpane.leasing.decisions{where=local|engine}}: decisions answered from a
 *       slice on this node, and those that waited for the engine;
 *   <li>gauges {@code windowpane.leasing.local.hit.ratio} (local / all decisions, 0 before the
 *       first) and {@code windowpane.leasing.active} (1, or 0 once the engine answered that it
 *       cannot lease).
 * </ul>
 *
 * The same names in the service and the Spring Boot starter.
 */
public final class LeasingMetrics {

  private LeasingMetrics() {}

  /** Binds the meters of {@code limiter} to {@code registry}; nothing when leasing is off. */
  public static void bind(MeterRegistry registry, String name, RateLimiter limiter) {
    if (limiter.leaseStats().isEmpty()) {
      return;
    }
    Tags tags = Tags.of("limiter", name);
    counter(registry, "leases", "Lease calls answered with a grant", tags, limiter,
        LeaseStats::leases);
    counter(registry, "permits", "Permits granted by lease calls", tags.and("kind", "leased"),
        limiter, LeaseStats::leasedPermits);
    counter(registry, "permits", "Unspent leased permits given back", tags.and("kind",
        "returned"), limiter, LeaseStats::returnedPermits);
    counter(registry, "returns", "Release calls sent for unspent permits", tags, limiter,
        LeaseStats::returns);
    counter(registry, "returns.failed", "Release calls that failed (their permits stay counted"
        + " until the window lets them go)", tags, limiter, LeaseStats::failedReturns);
    counter(registry, "decisions", "Decisions answered from a leased slice on this node",
        tags.and("where", "local"), limiter, LeaseStats::localDecisions);
    counter(registry, "decisions", "Decisions that waited for the engine",
        tags.and("where", "engine"), limiter, LeaseStats::engineDecisions);
    Gauge.builder("windowpane.leasing.local.hit.ratio", limiter,
            l -> read(l, LeaseStats::localHitRatio))
        .description("Decisions answered from a leased slice / all decisions (0 before any)")
        .tags(tags)
        .strongReference(true)
        .register(registry);
    Gauge.builder("windowpane.leasing.active", limiter,
            l -> read(l, s -> s.active() ? 1 : 0))
        .description("1 while the limiter leases, 0 once its engine answered it cannot")
        .tags(tags)
        .strongReference(true)
        .register(registry);
  }

  private static void counter(MeterRegistry registry, String name, String description,
      Tags tags, RateLimiter limiter, ToDoubleFunction<LeaseStats> count) {
    FunctionCounter.builder("windowpane.leasing." + name, limiter, l -> read(l, count))
        .description(description)
        .tags(tags)
        .register(registry);
  }

  private static double read(RateLimiter limiter, ToDoubleFunction<LeaseStats> value) {
    return limiter.leaseStats().map(value::applyAsDouble).orElse(Double.NaN);
  }
}
