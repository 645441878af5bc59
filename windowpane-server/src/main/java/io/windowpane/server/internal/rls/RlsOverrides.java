package io.windowpane.server.internal.rls;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.Unit;
import io.windowpane.Algorithm;
import io.windowpane.Windowpane;
import io.windowpane.server.internal.rls.RlsService.RefusedException;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Limits given in the request ({@code descriptor.limit}, Envoy's per-route override): as in
 * envoyproxy/ratelimit they bypass the domain's rules and count under the domain and every
 * entry of the descriptor. One limiter per distinct (requests per unit, unit), built on first
 * use, panes windows; at most {@value #MAX_OVERRIDES} distinct ones per process, so a client
 * cannot make the service build limiters without bound.
 */
final class RlsOverrides {

  static final int MAX_OVERRIDES = 1_000;

  private final Windowpane wp;
  private final ConcurrentMap<String, RlsRule> rules = new ConcurrentHashMap<>();

  RlsOverrides(Windowpane wp) {
    this.wp = wp;
  }

  RlsMatch match(String domain, RateLimitDescriptor d, String at) throws RefusedException {
    RateLimitDescriptor.RateLimitOverride o = d.getLimit();
    long requests = Integer.toUnsignedLong(o.getRequestsPerUnit());
    Unit unit = null;
    for (Unit u : Unit.values()) {
      if (u != Unit.UNKNOWN && u != Unit.UNRECOGNIZED && u.name().equals(o.getUnit().name())) {
        unit = u;
      }
    }
    if (unit == null) {
      throw RefusedException.invalid(at + ".limit.unit must be second, minute, hour, day,"
          + " month or year, was " + o.getUnit());
    }
    Unit chosen = unit;
    String id = "override." + unit.name().toLowerCase(java.util.Locale.ROOT) + "." + requests;
    RlsRule rule = rules.get(id);
    if (rule == null) {
      if (rules.size() >= MAX_OVERRIDES) {
        throw RefusedException.invalid(at + ".limit: this service already holds "
            + MAX_OVERRIDES + " distinct request-given limits; configure the limit instead");
      }
      rule = rules.computeIfAbsent(id, k -> {
        RlsRule r = new RlsRule("", k, "", List.of(), false, false, false, requests, chosen,
            Algorithm.SLIDING_PANES);
        r.bind(wp);
        return r;
      });
    }
    StringBuilder key = new StringBuilder(domain.length() + ":" + domain);
    StringBuilder metric = new StringBuilder(domain);
    for (Entry e : d.getEntriesList()) {
      key.append(e.getKey().length()).append(':').append(e.getKey())
          .append(e.getValue().length()).append(':').append(e.getValue());
      metric.append('.').append(e.getKey());
      if (!e.getValue().isEmpty()) {
        metric.append('_').append(e.getValue());
      }
    }
    return RlsMatch.of(rule, key.toString(), metric.toString());
  }
}
