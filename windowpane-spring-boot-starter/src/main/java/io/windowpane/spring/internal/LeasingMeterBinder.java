package io.windowpane.spring.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.windowpane.LeaseStats;
import io.windowpane.RateLimiter;
import io.windowpane.spring.WindowpaneCatalog;
import java.util.function.ToDoubleFunction;

/**
 * The hot-key leasing meters of every configured limiter with leasing on (docs/leasing.md),
 * with the service's names, each reading {@link RateLimiter#leaseStats()} when the registry is
 * scraped (nothing samples in between). Tagged {@code limiter}: {@code windowpane.leasing.leases},
 * {@code windowpane.leasing.permits{kind=leased|returned}}, {@code windowpane.leasing.returns},
 * {@code windowpane.leasing.returns.failed},
 * {@code windowpane.leasing.decisions{where=local|engine}}, and the gauges
 * {@code windowpane.leasing.local.hit.ratio} and {@code windowpane.leasing.active}. Spring Boot
 * binds it to each {@link MeterRegistry} once the context's singletons exist.
 */
public final class LeasingMeterBinder implements MeterBinder {

  private final WindowpaneCatalog catalog;

  public LeasingMeterBinder(WindowpaneCatalog catalog) {
    this.catalog = catalog;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    catalog.limiters().forEach((name, limiter) -> bind(registry, name, limiter));
  }

  private static void bind(MeterRegistry registry, String name, RateLimiter limiter) {
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
        .register(registry);
    Gauge.builder("windowpane.leasing.active", limiter,
            l -> read(l, s -> s.active() ? 1 : 0))
        .description("1 while the limiter leases, 0 once its engine answered it cannot")
        .tags(tags)
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
