package io.windowpane.server.internal.rlqs;

import io.envoyproxy.envoy.service.rate_limit_quota.v3.BucketId;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse.BucketAction;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse.BucketAction.AbandonAction;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse.BucketAction.QuotaAssignmentAction;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports.BucketQuotaUsage;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.windowpane.MillisClock;
import io.windowpane.WindowCounter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/*
 * Design note. One Envoy's report stream. Messages are taken one at a time (manual flow control:
 * the next is requested when the previous one is answered), so the per-stream state below is
 * only ever touched by one thread at a time and a fast Envoy cannot queue unbounded work.
 *
 * A message is checked whole before anything is recorded: one bad report refuses the message
 * with INVALID_ARGUMENT, records none of it and ends the stream (gRPC has no per-message error
 * on a stream). A report of a bucket no rule matches is answered with an abandon action and
 * records nothing. Each other report adds its allowed requests to the bucket's usage window and
 * its allowed + denied to the bucket's demand window, on the engine, and is answered with an
 * assignment computed from the counts those adds return (RlqsAssignment), in report order, in one
 * response per message.
 *
 * This stream's own demand per bucket is kept here, as (time, requests) over one time to live:
 * when the stream goes silent or ends, its demand leaves both its own sum and the fleet's demand
 * window within one time to live (plus one demand pane), which is when it loses its share.
 */
final class RlqsStream implements StreamObserver<RateLimitQuotaUsageReports> {

  /** Most bucket reports in one message. */
  static final int MAX_REPORTS = 10_000;
  /** Most buckets one stream may report. */
  static final int MAX_BUCKETS = 100_000;
  /** Longest bucket id key or value. */
  static final int MAX_TEXT = 256;

  private final RlqsService service;
  private final ServerCallStreamObserver<RateLimitQuotaResponse> out;
  private final Map<String, Tracked> tracked = new HashMap<>();
  private String domain;
  private boolean busy;
  private boolean halfClosed;
  private boolean ended;

  RlqsStream(RlqsService service, ServerCallStreamObserver<RateLimitQuotaResponse> out) {
    this.service = service;
    this.out = out;
    service.metrics().streamOpened();
  }

  @Override
  public void onNext(RateLimitQuotaUsageReports message) {
    List<CompletableFuture<BucketAction>> actions;
    synchronized (this) {
      if (ended) {
        return;
      }
      busy = true;
      RlqsConfig config = service.config();
      List<Report> reports;
      try {
        reports = check(message, config);
      } catch (RefusedException e) {
        service.metrics().refused(message.getBucketQuotaUsagesCount());
        fail(e.status);
        return;
      }
      long now = service.clock().millis();
      actions = new ArrayList<>(reports.size());
      for (Report r : reports) {
        actions.add(act(r, config, now));
      }
    }
    CompletableFuture.allOf(actions.toArray(new CompletableFuture<?>[0]))
        .whenComplete((ignored, failure) -> answer(actions, failure));
  }

  private void answer(List<CompletableFuture<BucketAction>> actions, Throwable failure) {
    if (failure != null) {
      Throwable cause = failure instanceof CompletionException && failure.getCause() != null
          ? failure.getCause() : failure;
      fail(Status.UNAVAILABLE.withDescription("the engine failed: " + cause).withCause(cause));
      return;
    }
    RateLimitQuotaResponse.Builder response = RateLimitQuotaResponse.newBuilder();
    actions.forEach(a -> response.addBucketAction(a.join()));
    boolean finish;
    synchronized (this) {
      if (ended) {
        return;
      }
      try {
        out.onNext(response.build());
      } catch (RuntimeException e) { // cancelled meanwhile
        end();
        return;
      }
      busy = false;
      finish = halfClosed;
    }
    if (finish) {
      onCompleted();
    } else {
      out.request(1);
    }
  }

  /** The action for one checked report: abandon, or record it and assign. */
  private CompletableFuture<BucketAction> act(Report r, RlqsConfig config, long now) {
    BucketAction.Builder action = BucketAction.newBuilder().setBucketId(r.id);
    if (r.rule == null) {
      service.metrics().unknownBucket();
      service.metrics().assignment(RlqsAssignment.Kind.ABANDON);
      return CompletableFuture.completedFuture(
          action.setAbandonAction(AbandonAction.getDefaultInstance()).build());
    }
    RlqsBucketRule rule = r.rule;
    long ttl = rule.ttl().toMillis();
    long requests = Math.min(r.allowed + r.denied, WindowCounter.MAX_ADD);
    Tracked t = tracked.get(r.trackKey);
    if (t == null) {
      t = new Tracked(r.key, now);
      tracked.put(r.trackKey, t);
      service.metrics().bucketTracked(r.key);
    }
    long abandonAfter = config.abandonAfter(domain).toMillis();
    if (requests == 0 && abandonAfter > 0 && now - t.lastActive >= abandonAfter) {
      tracked.remove(r.trackKey);
      service.metrics().bucketReleased(r.key);
      service.metrics().assignment(RlqsAssignment.Kind.ABANDON);
      return CompletableFuture.completedFuture(
          action.setAbandonAction(AbandonAction.getDefaultInstance()).build());
    }
    if (requests > 0) {
      t.lastActive = now;
    }
    long own = t.demand(now, requests, ttl);
    service.metrics().recorded(r.allowed, r.denied);
    try {
      CompletableFuture<Long> used = (r.allowed > 0
          ? rule.usage().addAsync(r.key, r.allowed) : rule.usage().countAsync(r.key))
          .toCompletableFuture();
      CompletableFuture<Long> fleet = (requests > 0
          ? rule.demand().addAsync(r.key, requests) : rule.demand().countAsync(r.key))
          .toCompletableFuture();
      return used.thenCombine(fleet, (u, d) -> {
        RlqsAssignment a = RlqsAssignment.of(rule.limit().permits(), u, own, d, ttl,
            rule.tokenBucket());
        service.metrics().assignment(a.kind());
        return action.setQuotaAssignmentAction(QuotaAssignmentAction.newBuilder()
            .setAssignmentTimeToLive(RlqsAssignment.duration(ttl))
            .setRateLimitStrategy(a.strategy())).build();
      });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Every report of {@code message}, checked, with its rule (null: unknown bucket). */
  private List<Report> check(RateLimitQuotaUsageReports message, RlqsConfig config)
      throws RefusedException {
    String d = message.getDomain();
    if (domain == null && d.isEmpty()) {
      throw RefusedException.invalid("domain must not be empty in a stream's first message");
    }
    if (domain != null && !d.isEmpty() && !d.equals(domain)) {
      throw RefusedException.invalid("domain must not change on a stream: it is '" + domain
          + "', this message says '" + shorten(d) + "'; open a new stream for another domain");
    }
    int n = message.getBucketQuotaUsagesCount();
    if (n == 0 || n > MAX_REPORTS) {
      throw RefusedException.invalid("bucket_quota_usages must hold 1 to " + MAX_REPORTS
          + " reports, was " + n);
    }
    String inDomain = domain == null ? d : domain;
    List<Report> reports = new ArrayList<>(n);
    int added = 0;
    for (int i = 0; i < n; i++) {
      BucketQuotaUsage u = message.getBucketQuotaUsages(i);
      String at = "bucket_quota_usages[" + i + "]";
      if (!u.hasBucketId() || u.getBucketId().getBucketCount() == 0) {
        throw RefusedException.invalid(at + ".bucket_id must hold 1 to "
            + RlqsConfig.MAX_ENTRIES + " entries, was " + (u.hasBucketId() ? "empty" : "missing"));
      }
      Map<String, String> bucket = u.getBucketId().getBucketMap();
      if (bucket.size() > RlqsConfig.MAX_ENTRIES) {
        throw RefusedException.invalid(at + ".bucket_id must hold 1 to "
            + RlqsConfig.MAX_ENTRIES + " entries, was " + bucket.size());
      }
      for (Map.Entry<String, String> e : bucket.entrySet()) {
        if (e.getKey().isEmpty() || e.getKey().length() > MAX_TEXT
            || e.getValue().isEmpty() || e.getValue().length() > MAX_TEXT) {
          throw RefusedException.invalid(at + ".bucket_id: every key and value must be 1 to "
              + MAX_TEXT + " characters long; key '" + shorten(e.getKey()) + "' has "
              + e.getKey().length() + " and value " + e.getValue().length());
        }
      }
      if (!u.hasTimeElapsed() || u.getTimeElapsed().getSeconds() < 0
          || u.getTimeElapsed().getSeconds() == 0 && u.getTimeElapsed().getNanos() <= 0) {
        throw RefusedException.invalid(at + ".time_elapsed must be given and positive, was "
            + (u.hasTimeElapsed() ? u.getTimeElapsed().getSeconds() + "s "
            + u.getTimeElapsed().getNanos() + "ns" : "missing"));
      }
      long allowed = count(u.getNumRequestsAllowed(), at + ".num_requests_allowed");
      long denied = count(u.getNumRequestsDenied(), at + ".num_requests_denied");
      RlqsBucketRule rule = config.match(inDomain, bucket);
      String key = rule == null ? null : rule.key(bucket);
      String trackKey = rule == null ? null : rule.name() + '\n' + key;
      if (trackKey != null && !tracked.containsKey(trackKey)) {
        added++;
      }
      reports.add(new Report(u.getBucketId(), rule, key, trackKey, allowed, denied));
    }
    if (tracked.size() + added > MAX_BUCKETS) {
      throw new RefusedException(Status.RESOURCE_EXHAUSTED.withDescription("a stream may"
          + " report at most " + MAX_BUCKETS + " buckets; this message would make "
          + (tracked.size() + added)));
    }
    domain = inDomain;
    return reports;
  }

  private static long count(long value, String at) throws RefusedException {
    if (value < 0 || value > WindowCounter.MAX_ADD) {
      throw RefusedException.invalid(at + " must be 0 to " + WindowCounter.MAX_ADD + ", was "
          + Long.toUnsignedString(value) + (value < 0 ? " (a negative count sent as uint64)"
          : ""));
    }
    return value;
  }

  private void fail(Status status) {
    synchronized (this) {
      if (ended) {
        return;
      }
      try {
        out.onError(status.asRuntimeException());
      } catch (RuntimeException ignored) { // already cancelled
      }
      end();
    }
  }

  @Override
  public void onError(Throwable t) { // the Envoy cancelled or the connection broke
    synchronized (this) {
      if (!ended) {
        end();
      }
    }
  }

  @Override
  public void onCompleted() {
    synchronized (this) {
      if (ended) {
        return;
      }
      if (busy) { // answered first, then finished by answer()
        halfClosed = true;
        return;
      }
      try {
        out.onCompleted();
      } catch (RuntimeException ignored) { // already cancelled
      }
      end();
    }
  }

  /** Forgets this stream: its buckets leave the gauge; its demand ages out of the windows. */
  private void end() {
    ended = true;
    service.metrics().streamClosed();
    for (Tracked t : tracked.values()) {
      service.metrics().bucketReleased(t.key);
    }
    tracked.clear();
  }

  private static String shorten(String s) {
    return s.length() <= 64 ? s : s.substring(0, 64) + "...";
  }

  /** One checked report. */
  private record Report(BucketId id, RlqsBucketRule rule, String key, String trackKey,
      long allowed, long denied) {}

  /** A bucket this stream reports: its recent demand and when it last had requests. */
  private static final class Tracked {
    final String key;
    long lastActive;
    private final ArrayDeque<long[]> recent = new ArrayDeque<>(); // {millis, requests}
    private long sum;

    Tracked(String key, long now) {
      this.key = key;
      this.lastActive = now;
    }

    /** Adds {@code requests} at {@code now}; returns the requests of the last {@code ttl}. */
    long demand(long now, long requests, long ttl) {
      if (requests > 0) {
        recent.addLast(new long[] {now, requests});
        sum += requests;
      }
      while (!recent.isEmpty() && recent.peekFirst()[0] <= now - ttl) {
        sum -= recent.removeFirst()[1];
      }
      return sum;
    }
  }

  /** A message refused before anything was recorded, with its gRPC status. */
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
