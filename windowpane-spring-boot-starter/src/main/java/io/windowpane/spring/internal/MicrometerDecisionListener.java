package io.windowpane.spring.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Decisions and backend calls as Micrometer meters, with the service's names:
 * {@code windowpane.decisions} (counter; tags {@code limiter}, {@code outcome} = allowed, denied
 * or would_deny, {@code degraded}) and {@code windowpane.backend} (timer; tags
 * {@code operation}, {@code outcome} = ok or error). Micrometer caches meters by name and tags,
 * so a lookup per decision costs a map read.
 */
public final class MicrometerDecisionListener implements DecisionListener {

  private final Supplier<MeterRegistry> registry;

  /** {@code registry} is asked on each event and may give null (then nothing is recorded). */
  public MicrometerDecisionListener(Supplier<MeterRegistry> registry) {
    this.registry = registry;
  }

  @Override
  public void decision(String limiter, String outcome, boolean degraded) {
    MeterRegistry r = registry.get();
    if (r != null) {
      Counter.builder("windowpane.decisions").description("Rate-limit decisions")
          .tag("limiter", limiter).tag("outcome", outcome)
          .tag("degraded", Boolean.toString(degraded)).register(r).increment();
    }
  }

  @Override
  public void decision(String limiter, String outcome, boolean degraded,
      Map<String, String> tags) {
    MeterRegistry r = registry.get();
    if (r != null) {
      Counter.Builder b = Counter.builder("windowpane.decisions")
          .description("Rate-limit decisions")
          .tag("limiter", limiter).tag("outcome", outcome)
          .tag("degraded", Boolean.toString(degraded));
      tags.forEach(b::tag);
      b.register(r).increment();
    }
  }

  @Override
  public void backend(String operation, boolean ok, long nanos) {
    MeterRegistry r = registry.get();
    if (r != null) {
      Timer.builder("windowpane.backend").description("Calls to the windowpane engine")
          .tag("operation", operation).tag("outcome", ok ? "ok" : "error")
          .register(r).record(nanos, TimeUnit.NANOSECONDS);
    }
  }
}
