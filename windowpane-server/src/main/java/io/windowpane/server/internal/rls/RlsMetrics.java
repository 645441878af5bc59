package io.windowpane.server.internal.rls;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Per-descriptor meters of the rate limit service, named after envoyproxy/ratelimit's
 * statistics, in the service's registry ({@code /metrics}), each counting hits
 * ({@code hits_addend}), not requests:
 *
 * <ul>
 *   <li>{@code windowpane_rls_total_hits_total{descriptor}}: every hit of a matched rule (the
 *       only one counting the hits of a descriptor in a request another descriptor denied:
 *       they were given back, or not asked for);
 *   <li>{@code windowpane_rls_over_limit_total{descriptor}}: hits over the limit (shadow
 *       included);
 *   <li>{@code windowpane_rls_near_limit_total{descriptor}}: allowed hits that left less than
 *       20% of the limit;
 *   <li>{@code windowpane_rls_within_limit_total{descriptor}}: allowed hits;
 *   <li>{@code windowpane_rls_shadow_mode_total{descriptor}}: over-limit hits a
 *       {@code shadow_mode} rule let through.
 * </ul>
 *
 * The {@code descriptor} tag is the rule's path ({@code domain.key_value.key}), or the runtime
 * values with {@code detailed_metric} / {@code value_to_metric}. Those can be many: past
 * {@value #MAX_DESCRIPTORS} distinct tags, further ones are counted under the rule's path.
 */
final class RlsMetrics {

  static final int MAX_DESCRIPTORS = 10_000;

  private final MeterRegistry registry;
  private final ConcurrentMap<String, Counter[]> meters = new ConcurrentHashMap<>();

  RlsMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  void count(RlsService.Check check, DescriptorStatus status) {
    if (check.match == null || check.match.rule().unlimited()) {
      if (check.match != null) { // an unlimited rule counts its hits only
        meters(check.match)[0].increment(check.hits);
      }
      return;
    }
    Counter[] c = meters(check.match);
    long hits = check.hits;
    c[0].increment(hits);
    if (!check.decided()) { // given back or not asked: another descriptor denied the request
      return;
    }
    if (check.overLimit()) {
      c[1].increment(hits);
      if (check.match.rule().shadow()) {
        c[4].increment(hits);
      }
    } else {
      c[3].increment(hits);
      long limit = check.match.rule().requestsPerUnit();
      if (Integer.toUnsignedLong(status.getLimitRemaining())
          < limit * (1 - RlsService.NEAR_LIMIT_RATIO)) {
        c[2].increment(hits);
      }
    }
  }

  private Counter[] meters(RlsMatch match) {
    String tag = match.metricKey();
    Counter[] c = meters.get(tag);
    if (c != null) {
      return c;
    }
    if (meters.size() >= MAX_DESCRIPTORS) {
      tag = match.rule().path();
    }
    return meters.computeIfAbsent(tag, this::register);
  }

  private Counter[] register(String descriptor) {
    String[] names = {"total.hits", "over.limit", "near.limit", "within.limit", "shadow.mode"};
    String[] help = {"Hits of descriptors that matched a rule",
        "Hits over the limit (shadow mode included)",
        "Allowed hits that left less than 20% of the limit",
        "Allowed hits", "Over-limit hits that a shadow_mode rule let through"};
    Counter[] c = new Counter[names.length];
    for (int i = 0; i < names.length; i++) {
      c[i] = Counter.builder("windowpane.rls." + names[i])
          .description(help[i])
          .tag("descriptor", descriptor)
          .register(registry);
    }
    return c;
  }
}
