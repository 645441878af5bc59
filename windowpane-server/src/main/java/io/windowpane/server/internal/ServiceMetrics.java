package io.windowpane.server.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * The service's meters, in Prometheus form at {@code /metrics}:
 *
 * <ul>
 *   <li>{@code windowpane_decisions_total{limiter, outcome, degraded}}: acquire decisions;
 *   <li>{@code windowpane_backend_seconds{operation, outcome}}: time from calling the engine to
 *       its answer, as a histogram (buckets from 100 µs to 5 s);
 *   <li>{@code windowpane_errors_total{error}}: refused or failed requests by error code;
 *   <li>JVM memory, GC, threads, CPU and uptime.
 * </ul>
 *
 * Meters are looked up once and cached, so the request path does a map read, not a registry
 * lookup.
 */
public final class ServiceMetrics implements AutoCloseable {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final ConcurrentMap<String, Timer> timers = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();

  public ServiceMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  /** Records one engine call of {@code operation}. */
  void backend(String operation, boolean ok, long nanos) {
    String outcome = ok ? "ok" : "error";
    timers.computeIfAbsent(operation + '/' + outcome, k -> Timer.builder("windowpane.backend")
            .description("Time from calling the engine to its answer")
            .tag("operation", operation)
            .tag("outcome", outcome)
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofNanos(100_000))
            .maximumExpectedValue(Duration.ofSeconds(5))
            .register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Counts one decision of {@code limiter}. */
  void decision(String limiter, boolean allowed, boolean degraded) {
    String outcome = allowed ? "allowed" : "denied";
    counters.computeIfAbsent("d/" + limiter + '/' + outcome + '/' + degraded,
        k -> Counter.builder("windowpane.decisions")
            .description("Rate-limit decisions")
            .tag("limiter", limiter)
            .tag("outcome", outcome)
            .tag("degraded", Boolean.toString(degraded))
            .register(registry))
        .increment();
  }

  /** Counts one refused or failed request. */
  void error(String code) {
    counters.computeIfAbsent("e/" + code, k -> Counter.builder("windowpane.errors")
            .description("Refused or failed requests, by error code")
            .tag("error", code)
            .register(registry))
        .increment();
  }

  /** The Prometheus text exposition of every meter. */
  String scrape() {
    return registry.scrape();
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
