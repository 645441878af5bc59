package io.windowpane.server.rlqs;

import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse.BucketAction;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Several Envoys on one bucket, as the rate_limit_quota filter behaves at its most generous:
 * until the first assignment they deny (a deny-all no_assignment_behavior), then each reporting
 * interval they admit as many requests as the active assignment can let through in that
 * interval from a full token bucket (every assignment is taken as new, so its bucket starts
 * full), and report exactly what they admitted and denied. Exact accounting: every admitted
 * request is kept by the time of the report that carried it, per pane of the limit's window.
 */
final class EnvoyFleet {

  final List<RlqsEnvoy> envoys;
  final String domain;
  final Map<String, String> bucket;
  final long ttlMillis;
  final long paneMillis;
  private final RateLimitStrategy[] active;
  /** Allowed requests reported, by pane index. */
  final TreeMap<Long, Long> allowedByPane = new TreeMap<>();
  /** The largest number of requests one assignment let an Envoy admit over one TTL. */
  long largestAssignment;
  long assignments;
  long denyAll;
  long abandoned;

  EnvoyFleet(List<RlqsEnvoy> envoys, String domain, Map<String, String> bucket, long ttlMillis,
      long paneMillis) {
    this.envoys = envoys;
    this.domain = domain;
    this.bucket = bucket;
    this.ttlMillis = ttlMillis;
    this.paneMillis = paneMillis;
    this.active = new RateLimitStrategy[envoys.size()];
  }

  /**
   * One reporting interval ending at {@code now}: Envoy i had {@code demand[i]} requests, all
   * of them report at once (concurrently, on {@code pool}); returns what each admitted.
   */
  long[] round(ExecutorService pool, long now, long intervalMillis, long[] demand)
      throws Exception {
    List<Callable<RateLimitQuotaResponse>> calls = new ArrayList<>();
    long[] admitted = new long[envoys.size()];
    for (int i = 0; i < envoys.size(); i++) {
      if (demand[i] < 0) { // silent this round
        continue;
      }
      admitted[i] = Math.min(demand[i], mostAdmitted(active[i], intervalMillis));
      long allowed = admitted[i];
      long denied = demand[i] - allowed;
      RlqsEnvoy envoy = envoys.get(i);
      calls.add(() -> envoy.send(RlqsEnvoy.reports(domain,
          RlqsEnvoy.usage(bucket, allowed, denied, intervalMillis))));
    }
    List<Future<RateLimitQuotaResponse>> answers = pool.invokeAll(calls);
    int a = 0;
    long total = 0;
    for (int i = 0; i < envoys.size(); i++) {
      if (demand[i] < 0) {
        continue;
      }
      total += admitted[i];
      BucketAction action = answers.get(a++).get().getBucketAction(0);
      if (action.hasAbandonAction()) {
        abandoned++;
        active[i] = null;
      } else {
        RateLimitStrategy s = action.getQuotaAssignmentAction().getRateLimitStrategy();
        active[i] = s;
        assignments++;
        if (s.hasBlanketRule()) {
          denyAll++;
        }
        largestAssignment = Math.max(largestAssignment, mostAdmitted(s, ttlMillis));
      }
    }
    allowedByPane.merge(Math.floorDiv(now, paneMillis), total, Long::sum);
    return admitted;
  }

  /** The active assignment of Envoy {@code i}. */
  RateLimitStrategy active(int i) {
    return active[i];
  }

  /** The most allowed requests reported in any {@code panes} consecutive panes. */
  long busiestWindow(int panes) {
    long most = 0;
    for (long first : allowedByPane.keySet()) {
      long sum = allowedByPane.subMap(first, first + panes).values().stream()
          .mapToLong(Long::longValue).sum();
      most = Math.max(most, sum);
    }
    return most;
  }

  /** The fewest allowed requests in {@code panes} consecutive panes from pane {@code from}. */
  long quietestWindow(int panes, long from, long to) {
    long least = Long.MAX_VALUE;
    for (long first = from; first + panes - 1 <= to; first++) {
      least = Math.min(least, allowedByPane.subMap(first, first + panes).values().stream()
          .mapToLong(Long::longValue).sum());
    }
    return least;
  }

  /**
   * The most requests an Envoy lets through in {@code millis} under {@code s}, from a full
   * token bucket: q per unit u admits q + q * t / u; a token bucket max + fill * t / interval.
   * No assignment: 0 (deny until assigned).
   */
  static long mostAdmitted(RateLimitStrategy s, long millis) {
    if (s == null) {
      return 0;
    }
    if (s.hasBlanketRule()) {
      return s.getBlanketRule() == RateLimitStrategy.BlanketRule.DENY_ALL ? 0 : Long.MAX_VALUE;
    }
    if (s.hasRequestsPerTimeUnit()) {
      long q = s.getRequestsPerTimeUnit().getRequestsPerTimeUnit();
      long u = unitMillis(s.getRequestsPerTimeUnit().getTimeUnit());
      return q + q * millis / u;
    }
    long max = Integer.toUnsignedLong(s.getTokenBucket().getMaxTokens());
    long fill = Integer.toUnsignedLong(s.getTokenBucket().getTokensPerFill().getValue());
    com.google.protobuf.Duration d = s.getTokenBucket().getFillInterval();
    long interval = d.getSeconds() * 1000 + d.getNanos() / 1_000_000;
    return max + fill * millis / interval;
  }

  static long unitMillis(RateLimitUnit unit) {
    switch (unit) {
      case SECOND: return 1_000L;
      case MINUTE: return 60_000L;
      case HOUR: return 3_600_000L;
      case DAY: return 86_400_000L;
      default: throw new AssertionError("unexpected unit " + unit);
    }
  }

  long totalAllowed() {
    return allowedByPane.values().stream().mapToLong(Long::longValue).sum();
  }
}
