package io.windowpane.spring.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.windowpane.RateLimiter;
import io.windowpane.spring.WindowpaneCatalog;

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
    catalog.limiters().forEach((name, limiter) ->
        io.windowpane.micrometer.LeasingMetrics.bind(registry, name, limiter));
  }
}
