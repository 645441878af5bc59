package io.windowpane.spring.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.windowpane.Failover;

/**
 * The failover chain's meters as a Spring Boot {@link MeterBinder}: those of
 * {@link io.windowpane.micrometer.FailoverMetrics}, the service's names and tags.
 */
public final class FailoverMeters implements MeterBinder {

  private final Failover chain;

  public FailoverMeters(Failover chain) {
    this.chain = chain;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    io.windowpane.micrometer.FailoverMetrics.bind(registry, chain);
  }
}
