package io.windowpane.server.internal.rlqs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Meters of the rate limit quota service, in the service's registry ({@code /metrics}):
 *
 * <ul>
 *   <li>{@code windowpane_rlqs_streams}: open report streams;
 *   <li>{@code windowpane_rlqs_buckets}: distinct bucket ids some open stream reports;
 *   <li>{@code windowpane_rlqs_reports_total{result}}: bucket usage reports, {@code recorded},
 *       {@code unknown_bucket} (answered with abandon, nothing recorded) or {@code refused}
 *       (a message refused with INVALID_ARGUMENT: each of its reports, nothing recorded);
 *   <li>{@code windowpane_rlqs_requests_total{outcome}}: requests Envoys reported,
 *       {@code allowed} or {@code denied};
 *   <li>{@code windowpane_rlqs_assignments_total{kind}}: bucket actions sent,
 *       {@code requests_per_time_unit}, {@code token_bucket}, {@code deny_all} or
 *       {@code abandon}.
 * </ul>
 *
 * Bucket ids are never tags (they are unbounded). Thread-safe.
 */
final class RlqsMetrics {

  private final AtomicInteger streams = new AtomicInteger();
  private final Map<String, AtomicInteger> buckets = new ConcurrentHashMap<>();
  private final Counter recorded;
  private final Counter unknown;
  private final Counter refused;
  private final Counter allowed;
  private final Counter denied;
  private final Map<RlqsAssignment.Kind, Counter> assignments =
      new EnumMap<>(RlqsAssignment.Kind.class);

  RlqsMetrics(MeterRegistry registry) {
    Gauge.builder("windowpane.rlqs.streams", streams, AtomicInteger::get)
        .description("Open RLQS report streams").register(registry);
    Gauge.builder("windowpane.rlqs.buckets", buckets, Map::size)
        .description("Distinct bucket ids reported by open streams").register(registry);
    recorded = reports(registry, "recorded");
    unknown = reports(registry, "unknown_bucket");
    refused = reports(registry, "refused");
    allowed = Counter.builder("windowpane.rlqs.requests").tag("outcome", "allowed")
        .description("Requests reported by Envoys").register(registry);
    denied = Counter.builder("windowpane.rlqs.requests").tag("outcome", "denied")
        .description("Requests reported by Envoys").register(registry);
    for (RlqsAssignment.Kind kind : RlqsAssignment.Kind.values()) {
      assignments.put(kind, Counter.builder("windowpane.rlqs.assignments")
          .tag("kind", kind.tag).description("Bucket actions sent to Envoys")
          .register(registry));
    }
  }

  private static Counter reports(MeterRegistry registry, String result) {
    return Counter.builder("windowpane.rlqs.reports").tag("result", result)
        .description("Bucket usage reports received").register(registry);
  }

  void streamOpened() {
    streams.incrementAndGet();
  }

  void streamClosed() {
    streams.decrementAndGet();
  }

  /** A stream started reporting {@code key}. */
  void bucketTracked(String key) {
    buckets.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
  }

  /** A stream stopped reporting {@code key} (abandoned, or the stream ended). */
  void bucketReleased(String key) {
    buckets.computeIfPresent(key, (k, n) -> n.decrementAndGet() <= 0 ? null : n);
  }

  void recorded(long allowedRequests, long deniedRequests) {
    recorded.increment();
    allowed.increment(allowedRequests);
    denied.increment(deniedRequests);
  }

  void unknownBucket() {
    unknown.increment();
  }

  void refused(int reports) {
    refused.increment(Math.max(1, reports));
  }

  void assignment(RlqsAssignment.Kind kind) {
    assignments.get(kind).increment();
  }
}
