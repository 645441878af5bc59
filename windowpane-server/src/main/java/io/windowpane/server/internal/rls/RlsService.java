package io.windowpane.server.internal.rls;

import com.google.protobuf.Duration;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.windowpane.Decision;
import io.windowpane.MillisClock;
import io.windowpane.Windowpane;
import io.windowpane.config.RateLimitHeaders;
import io.micrometer.observation.Observation;
import io.windowpane.micrometer.ObservationEngineObserver;
import io.windowpane.server.internal.Tracing;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/*
 * Design note. One ShouldRateLimit call: check the request (every refusal is a gRPC status
 * before any engine call, so a refused request records nothing), match each descriptor to its
 * rule (RlsMatch), drop the rules named by another match's `replaces`, then decide the matched
 * descriptors (RlsGroup) and answer when every engine call has answered.
 *
 * Atomicity. Each descriptor's own decision is all-or-nothing across its rule's limits, and the
 * descriptors of one request are all-or-nothing together (RlsGroup, on
 * Windowpane.tryAcquireAllOrNothing): when one enforced descriptor is over, none keeps its hits.
 * shadow_mode descriptors are decided on their own (they cannot deny). docs/envoy.md says what
 * this guarantees and what it does not.
 *
 * Threads. Nothing here blocks: the local engine answers inline, Redis answers on Lettuce's
 * threads, and the reply is written from the last callback, so the gRPC server runs with a
 * direct executor.
 */
final class RlsService implements RateLimitServiceGrpc.AsyncService {

  /** Most descriptors in one request. */
  static final int MAX_DESCRIPTORS = 64;
  /** Most entries in one descriptor. */
  static final int MAX_ENTRIES = 16;
  /** Longest entry key or value, in characters. */
  static final int MAX_TEXT = 1024;
  /** {@code limit_remaining} of an unlimited descriptor: uint32's largest value. */
  static final int UNLIMITED_REMAINING = (int) 0xFFFF_FFFFL;

  private final Windowpane wp;
  private volatile RlsConfig config; // swapped whole by RlsReloader
  private final RlsOverrides overrides;
  private final RlsMetrics metrics;
  private final MillisClock clock;
  private final Tracing tracing;

  RlsService(Windowpane wp, RlsConfig config, RlsOverrides overrides, RlsMetrics metrics,
      MillisClock clock, Tracing tracing) {
    this.tracing = tracing;
    this.wp = wp;
    this.config = config;
    this.overrides = overrides;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** Puts {@code rules} (bound to the same engine) in force for the calls that follow. */
  void rules(RlsConfig rules) {
    this.config = rules;
  }

  @Override
  public void shouldRateLimit(RateLimitRequest request,
      StreamObserver<RateLimitResponse> reply) {
    List<Check> checks;
    try {
      checks = checks(request);
    } catch (RefusedException e) {
      reply.onError(e.status.asRuntimeException());
      return;
    }
    long now = clock.millis();
    Observation span = tracing.decision(TraceHeaders.HEADERS.get(), TraceHeaders::get,
        "ShouldRateLimit " + request.getDomain(), null, wp.engineName())
        .lowCardinalityKeyValue("windowpane.domain", request.getDomain());
    CompletableFuture<?> decided;
    try {
      decided = span.scoped(() -> RlsGroup.decide(wp, checks));
    } catch (RuntimeException e) {
      decided = CompletableFuture.failedFuture(e);
    }
    decided.whenComplete((ignored, failure) -> {
      if (failure != null) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException
            && failure.getCause() != null ? failure.getCause() : failure;
        Tracing.end(span, null, cause);
        reply.onError(Status.UNAVAILABLE.withDescription("the engine failed: " + cause)
            .withCause(cause).asRuntimeException());
        return;
      }
      try {
        RateLimitResponse response = response(checks, now);
        span.lowCardinalityKeyValue(ObservationEngineObserver.OUTCOME,
            response.getOverallCode() == Code.OVER_LIMIT ? "denied" : "allowed");
        Tracing.end(span, null, null);
        reply.onNext(response);
        reply.onCompleted();
      } catch (RuntimeException e) {
        Tracing.end(span, null, e);
        reply.onError(Status.INTERNAL.withDescription(e.toString()).asRuntimeException());
      }
    });
  }

  /** What to decide for each descriptor, or a refusal naming the bad field. */
  private List<Check> checks(RateLimitRequest request) throws RefusedException {
    String domain = request.getDomain();
    if (domain.isEmpty()) {
      throw RefusedException.invalid("domain must not be empty");
    }
    int count = request.getDescriptorsCount();
    if (count == 0 || count > MAX_DESCRIPTORS) {
      throw RefusedException.invalid("descriptors must hold 1 to " + MAX_DESCRIPTORS
          + " descriptors, was " + count);
    }
    RlsConfig rules = config;
    RlsNode root = rules.domain(domain);
    if (root == null) {
      throw new RefusedException(Status.NOT_FOUND.withDescription("unknown domain '"
          + shorten(domain) + "'; configured: " + String.join(", ", rules.domains())));
    }
    List<Check> checks = new ArrayList<>(count);
    Set<String> replaced = new HashSet<>();
    for (int i = 0; i < count; i++) {
      RateLimitDescriptor d = request.getDescriptors(i);
      String at = "descriptors[" + i + "]";
      entries(d, at);
      long hits = hits(request, d, at);
      RlsMatch match = d.hasLimit() ? overrides.match(domain, d, at)
          : RlsMatch.find(root, domain, d.getEntriesList());
      if (match != null) {
        replaced.addAll(match.rule().replaces());
      }
      checks.add(new Check(match, hits));
    }
    for (int i = 0; i < checks.size(); i++) {
      RlsMatch m = checks.get(i).match;
      if (m != null && !m.rule().name().isEmpty() && replaced.contains(m.rule().name())) {
        checks.set(i, new Check(null, checks.get(i).hits));
      }
    }
    return checks;
  }

  private static void entries(RateLimitDescriptor d, String at) throws RefusedException {
    int n = d.getEntriesCount();
    if (n == 0 || n > MAX_ENTRIES) {
      throw RefusedException.invalid(at + ".entries must hold 1 to " + MAX_ENTRIES
          + " entries, was " + n);
    }
    for (int j = 0; j < n; j++) {
      Entry e = d.getEntries(j);
      if (e.getKey().isEmpty() || e.getKey().length() > MAX_TEXT) {
        throw RefusedException.invalid(at + ".entries[" + j + "].key must be 1 to " + MAX_TEXT
            + " characters long, was " + e.getKey().length());
      }
      if (e.getValue().length() > MAX_TEXT) {
        throw RefusedException.invalid(at + ".entries[" + j + "].value must be at most "
            + MAX_TEXT + " characters long, was " + e.getValue().length());
      }
    }
  }

  /** The descriptor's {@code hits_addend}, else the request's, else 1. */
  private static long hits(RateLimitRequest request, RateLimitDescriptor d, String at)
      throws RefusedException {
    if (d.hasHitsAddend()) {
      long n = d.getHitsAddend().getValue();
      if (n < 1 || n > 0xFFFF_FFFFL) {
        throw RefusedException.invalid(at + ".hits_addend must be 1 to 4294967295, was "
            + Long.toUnsignedString(n) + (n == 0 ? " (a check that counts nothing is not"
            + " supported)" : ""));
      }
      return n;
    }
    return Math.max(1, Integer.toUnsignedLong(request.getHitsAddend()));
  }

  private RateLimitResponse response(List<Check> checks, long now) {
    RateLimitResponse.Builder out = RateLimitResponse.newBuilder();
    boolean over = false;
    DescriptorStatus tightest = null;
    for (Check c : checks) {
      DescriptorStatus s = c.status(now);
      metrics.count(c);
      out.addStatuses(s);
      boolean denied = s.getCode() == Code.OVER_LIMIT;
      over |= denied;
      if (s.hasCurrentLimit() && (tightest == null || tighter(s, tightest))) {
        tightest = s;
      }
    }
    out.setOverallCode(over ? Code.OVER_LIMIT : Code.OK);
    if (tightest != null) {
      out.addResponseHeadersToAdd(header("RateLimit-Limit",
          Integer.toUnsignedString(tightest.getCurrentLimit().getRequestsPerUnit())));
      out.addResponseHeadersToAdd(header("RateLimit-Remaining",
          Integer.toUnsignedString(tightest.getLimitRemaining())));
      Duration reset = tightest.getDurationUntilReset();
      out.addResponseHeadersToAdd(header("RateLimit-Reset", Long.toString(
          RateLimitHeaders.ceilSeconds(reset.getSeconds() * 1000 + reset.getNanos() / 1_000_000))));
    }
    return out.build();
  }

  /** Denied before allowed, then the fewer remaining. */
  private static boolean tighter(DescriptorStatus a, DescriptorStatus b) {
    boolean aOver = a.getCode() == Code.OVER_LIMIT;
    boolean bOver = b.getCode() == Code.OVER_LIMIT;
    if (aOver != bOver) {
      return aOver;
    }
    return Integer.toUnsignedLong(a.getLimitRemaining())
        < Integer.toUnsignedLong(b.getLimitRemaining());
  }

  private static HeaderValue header(String name, String value) {
    return HeaderValue.newBuilder().setKey(name).setValue(value).build();
  }

  private static String shorten(String s) {
    return s.length() <= 64 ? s : s.substring(0, 64) + "...";
  }

  /** One descriptor: its match (null: no rule applies), its hits, then its decision. */
  static final class Check {
    final RlsMatch match;
    final long hits;
    Decision decision;
    /** Denied without asking the engine: more hits than the limit, or a limit of 0. */
    boolean overWithoutEngine;
    /** Not decided: another descriptor denied the request first; its decision is a peek. */
    boolean notAsked;
    /** Had room, but another descriptor denied the request: its hits were given back. */
    boolean givenBack;
    /**
     * Hits of the request's earlier descriptors under the same rule and counter key: the
     * reference counts them before this one. Read only when over without the engine.
     */
    long earlierHits;
    /** Room of the window, peeked when over without the engine; -1 when not known. */
    long peekedRoom = -1;

    Check(RlsMatch match, long hits) {
      this.match = match;
      this.hits = hits;
      if (match != null && !match.rule().unlimited()
          && (match.rule().limiter() == null || hits > match.rule().requestsPerUnit())) {
        overWithoutEngine = true;
      }
    }

    /** Whether deciding it takes an engine call: a limited rule, hits within the limit. */
    boolean reachesEngine() {
      return match != null && !match.rule().unlimited() && !overWithoutEngine;
    }

    /** Decides this descriptor on its own (tryAcquire on its rule's limiter). */
    CompletableFuture<?> decideAlone() {
      try {
        return match.rule().limiter().tryAcquireAsync(match.counterKey(), hits)
            .toCompletableFuture().thenAccept(d -> decision = d);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    /** Whether its hits count in within_limit / over_limit (not given back, not skipped). */
    boolean decided() {
      return !notAsked && !givenBack;
    }

    /**
     * The window's count before this request's hits ("used", the reference's
     * {@code limitBeforeIncrease}), from the decision's remaining; -1 when not known (over
     * without the engine on an engine that cannot peek). Only for decided checks of a limited
     * rule.
     */
    long used() {
      RlsRule rule = match.rule();
      long limit = rule.requestsPerUnit();
      if (rule.limiter() == null) { // requests_per_unit 0: always at or over the limit
        return 0;
      }
      if (overWithoutEngine) {
        return peekedRoom < 0 ? -1 : Math.max(0, limit - peekedRoom) + earlierHits;
      }
      long room = decision.allowed() ? decision.remaining() + hits : decision.remaining();
      return Math.max(0, limit - room);
    }

    /** Whether the limit said no (shadow mode then still answers OK). */
    boolean overLimit() {
      return overWithoutEngine || decision != null && !decision.allowed();
    }

    DescriptorStatus status(long now) {
      DescriptorStatus.Builder s = DescriptorStatus.newBuilder().setCode(Code.OK);
      if (match == null) {
        return s.build();
      }
      RlsRule rule = match.rule();
      if (rule.unlimited()) {
        return s.setLimitRemaining(UNLIMITED_REMAINING).build();
      }
      s.setCurrentLimit(RateLimitResponse.RateLimit.newBuilder()
          .setName(rule.name())
          .setRequestsPerUnit((int) rule.requestsPerUnit())
          .setUnit(rule.unit()));
      if (notAsked && decision == null) { // not asked, and the engine cannot peek
        return s.setLimitRemaining((int) rule.requestsPerUnit()).build();
      }
      // Over (shadow included): 0, as envoyproxy/ratelimit answers, not the room these hits
      // did not fit in.
      long remaining = overLimit() ? 0 : decision.remaining();
      s.setLimitRemaining((int) Math.min(remaining, 0xFFFF_FFFFL));
      long untilReset;
      if (overLimit()) {
        untilReset = decision != null ? decision.retryAfterMillis()
            : RlsRule.length(rule.unit()).toMillis();
      } else {
        untilReset = RateLimitHeaders.resetMillis(rule.limiter().quota(), now);
      }
      s.setDurationUntilReset(Duration.newBuilder().setSeconds(untilReset / 1000)
          .setNanos((int) (untilReset % 1000) * 1_000_000));
      s.setCode(overLimit() && !rule.shadow() ? Code.OVER_LIMIT : Code.OK);
      return s.build();
    }
  }

  /** A request refused before any engine call, with its gRPC status. */
  static final class RefusedException extends Exception {
    final Status status;

    RefusedException(Status status) {
      super(status.getDescription(), null, false, false);
      this.status = status;
    }

    static RefusedException invalid(String message) {
      return new RefusedException(Status.INVALID_ARGUMENT.withDescription(message));
    }
  }
}
