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
import io.windowpane.Failover;
import io.windowpane.MillisClock;
import io.windowpane.RateLimiter;
import java.time.Duration;
import java.util.List;
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
 *   <li>with a failover chain ({@link #failover}): {@code windowpane_failover_health{engine}}
 *       (0 up, 1 read_only, 2 down), {@code windowpane_failover_active{engine}} (1 for the member
 *       taking writes), and the chain's own counters {@code windowpane_failover_trips_total},
 *       {@code _recoveries_total}, {@code _replayed_events_total},
 *       {@code _dropped_events_total}, {@code _lost_events_total};
 *   <li>for each limiter with leasing on ({@link #leasing}): {@code windowpane_leasing_*}
 *       ({@link io.windowpane.micrometer.LeasingMetrics});
 *   <li>JVM memory, GC, threads, CPU and uptime.
 * </ul>
 *
 * Meters are looked up once and cached, so the request path does a map read, not a registry
 * lookup. The dashboard's feed reads the same meters' totals ({@link #decisionTotals},
 * {@link #backendTotals}, {@link #errorTotals}) when it is asked; its history
 * ({@link DashboardHistory}) reads the decision and backend totals once a second on a thread of
 * its own, which {@link #close()} stops. The request path does nothing for either.
 */
public final class ServiceMetrics implements AutoCloseable {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final ConcurrentMap<String, Timer[]> timers = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Counter[]> decisions = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Counter> errors = new ConcurrentHashMap<>();
  private final DashboardHistory history;

  /** The meters, and their five-minute history sampled every second on the system clock. */
  public ServiceMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    // the maps it reads are assigned above, so reading them from here is safe
    history = new DashboardHistory(this, MillisClock.system());
    history.sampleEverySecond();
  }

  /** The last five minutes of decisions and engine calls per second, for the dashboard. */
  DashboardHistory history() {
    return history;
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
    decision(limiter, allowed ? Outcome.ALLOWED : Outcome.DENIED, degraded);
  }

  /** Counts one decision of {@code limiter}: allowed, denied, or would-deny (shadow mode). */
  void decision(String limiter, Outcome outcome, boolean degraded) {
    decisions.computeIfAbsent(limiter, this::decisionCounters)
        [outcome.ordinal() * 2 + (degraded ? 1 : 0)].increment();
  }

  /** The {@code outcome} label of a decision; {@code would_deny}: denied, let through (shadow). */
  enum Outcome {
    ALLOWED, DENIED, WOULD_DENY;

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** For each outcome, not degraded then degraded. */
  private Counter[] decisionCounters(String limiter) {
    Outcome[] outcomes = Outcome.values();
    Counter[] counters = new Counter[outcomes.length * 2];
    for (int i = 0; i < counters.length; i++) {
      counters[i] = Counter.builder("windowpane.decisions")
          .description("Rate-limit decisions")
          .tag("limiter", limiter)
          .tag("outcome", outcomes[i / 2].label())
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

  /**
   * Reports {@code chain}'s members and counters; each meter reads the chain when scraped
   * (a snapshot of a few fields), so nothing is pushed from the chain's thread. The counters
   * hold the chain weakly, as Micrometer does; the server holds it while it runs.
   */
  public void failover(Failover chain) {
    io.windowpane.micrometer.FailoverMetrics.bind(registry, chain);
  }

  /**
   * Reports the memory guard's level, bytes and counters when the engine has one
   * ({@link io.windowpane.micrometer.MemoryMetrics}); each meter reads the guard's last reading.
   */
  public void memory(io.windowpane.Windowpane windowpane) {
    io.windowpane.micrometer.MemoryMetrics.bind(registry, windowpane);
  }

  /**
   * Reports the leasing counters of {@code limiter} when its quota has leasing on
   * ({@link io.windowpane.micrometer.LeasingMetrics}); each meter reads {@link RateLimiter#leaseStats()} when scraped.
   */
  public void leasing(String name, RateLimiter limiter) {
    io.windowpane.micrometer.LeasingMetrics.bind(registry, name, limiter);
  }

  /** A limiter's decisions so far by outcome; {@code degraded} counts those of every outcome. */
  record DecisionTotals(long allowed, long denied, long wouldDeny, long degraded) {}

  /** The decisions of {@code limiter} so far; zeros before its first. */
  DecisionTotals decisionTotals(String limiter) {
    Counter[] c = decisions.get(limiter);
    if (c == null) {
      return new DecisionTotals(0, 0, 0, 0);
    }
    long[] byOutcome = new long[Outcome.values().length];
    long degraded = 0;
    for (int i = 0; i < c.length; i++) {
      long n = (long) c[i].count();
      byOutcome[i / 2] += n;
      degraded += i % 2 == 1 ? n : 0;
    }
    return new DecisionTotals(byOutcome[0], byOutcome[1], byOutcome[2], degraded);
  }

  /** The decisions so far of each limiter that has decided at least once. */
  void decisionTotals(java.util.function.BiConsumer<String, DecisionTotals> each) {
    for (String limiter : decisions.keySet()) {
      each.accept(limiter, decisionTotals(limiter));
    }
  }

  /**
   * The engine calls of one operation so far: how many answered and failed, their total time,
   * and the longest of the recent ones (Micrometer's decaying maximum, over about 2 minutes).
   */
  record BackendTotals(String operation, long ok, long errors, double totalMillis,
      double maxMillis) {}

  /** Every operation called so far, by name. */
  List<BackendTotals> backendTotals() {
    List<BackendTotals> all = new java.util.ArrayList<>();
    new java.util.TreeMap<>(timers).forEach((operation, pair) -> all.add(new BackendTotals(
        operation, pair[0].count(), pair[1].count(),
        pair[0].totalTime(TimeUnit.MILLISECONDS) + pair[1].totalTime(TimeUnit.MILLISECONDS),
        Math.max(pair[0].max(TimeUnit.MILLISECONDS), pair[1].max(TimeUnit.MILLISECONDS)))));
    return all;
  }

  /** Refused or failed requests so far, by error code. */
  java.util.SortedMap<String, Long> errorTotals() {
    java.util.SortedMap<String, Long> all = new java.util.TreeMap<>();
    errors.forEach((code, counter) -> all.put(code, (long) counter.count()));
    return all;
  }

  /** The registry, for the meters of the Envoy rate limit service (docs/envoy.md). */
  public io.micrometer.core.instrument.MeterRegistry registry() {
    return registry;
  }

  /** The Prometheus text exposition of every meter. */
  String scrape() {
    return registry.scrape();
  }

  @Override
  public void close() {
    history.close();
    gc.close();
    registry.close();
  }
}
