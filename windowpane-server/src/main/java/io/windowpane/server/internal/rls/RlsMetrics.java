package io.windowpane.server.internal.rls;

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
 *   <li>{@code windowpane_rls_over_limit_total{descriptor}}: hits beyond the limit (shadow
 *       included);
 *   <li>{@code windowpane_rls_near_limit_total{descriptor}}: hits between 80% of the limit and
 *       the limit;
 *   <li>{@code windowpane_rls_within_limit_total{descriptor}}: allowed hits;
 *   <li>{@code windowpane_rls_shadow_mode_total{descriptor}}: hits beyond the limit that a
 *       {@code shadow_mode} rule let through.
 * </ul>
 *
 * One request's hits are split between near and over at the thresholds exactly as
 * envoyproxy/ratelimit splits them ({@link RlsHitSplit}).
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

  void count(RlsService.Check check) {
    if (check.match == null || check.match.rule().unlimited()) {
      if (check.match != null) { // an unlimited rule counts its hits only
        meters(check.match)[0].increment(check.hits);
      }
      return;
    }
    Counter[] c = meters(check.match);
    c[0].increment(check.hits);
    if (!check.decided()) { // given back or not asked: another descriptor denied the request
      return;
    }
    RlsRule rule = check.match.rule();
    RlsHitSplit split = RlsHitSplit.of(rule.requestsPerUnit(), check.used(), check.hits,
        check.overLimit(), rule.shadow());
    increment(c[1], split.over());
    increment(c[2], split.near());
    increment(c[3], split.within());
    increment(c[4], split.shadow());
  }

  private static void increment(Counter counter, long amount) {
    if (amount > 0) {
      counter.increment(amount);
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
        "Hits beyond the limit (shadow mode included)",
        "Hits between 80% of the limit and the limit",
        "Allowed hits", "Hits beyond the limit that a shadow_mode rule let through"};
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
