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
  private final ConcurrentMap<String, Timer[]> timers = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Counter[]> decisions = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Counter> errors = new ConcurrentHashMap<>();

  public ServiceMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  /** Records one engine call of {@code operation}. */
  void backend(String operation, boolean ok, long nanos) {
    timers.computeIfAbsent(operation, this::timers)[ok ? 0 : 1]
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  private Timer[] timers(String operation) {
    Timer[] pair = new Timer[2];
    for (int i = 0; i < 2; i++) {
      pair[i] = Timer.builder("windowpane.backend")
          .description("Time from calling the engine to its answer")
          .tag("operation", operation)
          .tag("outcome", i == 0 ? "ok" : "error")
          .publishPercentileHistogram()
          .minimumExpectedValue(Duration.ofNanos(100_000))
          .maximumExpectedValue(Duration.ofSeconds(5))
          .register(registry);
    }
    return pair;
  }

  /** Counts one decision of {@code limiter}. */
  void decision(String limiter, boolean allowed, boolean degraded) {
    decisions.computeIfAbsent(limiter, this::decisionCounters)
        [(allowed ? 0 : 2) + (degraded ? 1 : 0)].increment();
  }

  /** allowed, allowed degraded, denied, denied degraded. */
  private Counter[] decisionCounters(String limiter) {
    Counter[] counters = new Counter[4];
    for (int i = 0; i < 4; i++) {
      counters[i] = Counter.builder("windowpane.decisions")
          .description("Rate-limit decisions")
          .tag("limiter", limiter)
          .tag("outcome", i < 2 ? "allowed" : "denied")
          .tag("degraded", Boolean.toString(i % 2 == 1))
          .register(registry);
    }
    return counters;
  }

  /** Counts one refused or failed request. */
  void error(String code) {
    errors.computeIfAbsent(code, k -> Counter.builder("windowpane.errors")
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
