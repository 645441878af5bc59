package io.windowpane.server.internal.rlqs;

import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaServiceGrpc;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.windowpane.MillisClock;

/**
 * {@code envoy.service.rate_limit_quota.v3.RateLimitQuotaService}: one {@link RlqsStream} per
 * {@code StreamRateLimitQuotas} call, all on the same buckets, engine, clock and meters.
 * Thread-safe.
 */
final class RlqsService implements RateLimitQuotaServiceGrpc.AsyncService {

  private final RlqsConfig config;
  private final RlqsMetrics metrics;
  private final MillisClock clock;

  RlqsService(RlqsConfig config, RlqsMetrics metrics, MillisClock clock) {
    this.config = config;
    this.metrics = metrics;
    this.clock = clock;
  }

  @Override
  public StreamObserver<RateLimitQuotaUsageReports> streamRateLimitQuotas(
      StreamObserver<RateLimitQuotaResponse> responses) {
    ServerCallStreamObserver<RateLimitQuotaResponse> out =
        (ServerCallStreamObserver<RateLimitQuotaResponse>) responses;
    out.disableAutoRequest(); // one message at a time: RlqsStream asks for the next
    RlqsStream stream = new RlqsStream(this, out);
    out.request(1);
    return stream;
  }

  RlqsConfig config() {
    return config;
  }

  RlqsMetrics metrics() {
    return metrics;
  }

  MillisClock clock() {
    return clock;
  }
}
