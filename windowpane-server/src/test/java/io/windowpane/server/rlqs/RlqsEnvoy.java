package io.windowpane.server.rlqs;

import com.google.protobuf.Duration;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.BucketId;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaServiceGrpc;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports.BucketQuotaUsage;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One Envoy's end of {@code StreamRateLimitQuotas}, from the Envoy API jar's generated stubs:
 * sends a message of reports and waits for the server's answer (each message is answered with
 * one response), or for the stream's end.
 */
final class RlqsEnvoy implements AutoCloseable {

  private final ManagedChannel channel;
  private final StreamObserver<RateLimitQuotaUsageReports> requests;
  private final BlockingQueue<Object> answers = new LinkedBlockingQueue<>();

  RlqsEnvoy(int port, String token) {
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    RateLimitQuotaServiceGrpc.RateLimitQuotaServiceStub stub =
        RateLimitQuotaServiceGrpc.newStub(channel);
    if (token != null) {
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
          "Bearer " + token);
      stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    requests = stub.streamRateLimitQuotas(new StreamObserver<>() {
      @Override
      public void onNext(RateLimitQuotaResponse value) {
        answers.add(value);
      }

      @Override
      public void onError(Throwable t) {
        answers.add(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        answers.add(Status.OK);
      }
    });
  }

  RlqsEnvoy(int port) {
    this(port, null);
  }

  /** Sends {@code message}; returns its answer, or throws the status that ended the stream. */
  RateLimitQuotaResponse send(RateLimitQuotaUsageReports message) throws InterruptedException {
    requests.onNext(message);
    Object answer = answers.poll(20, TimeUnit.SECONDS);
    if (answer instanceof RateLimitQuotaResponse) {
      return (RateLimitQuotaResponse) answer;
    }
    if (answer == null) {
      throw new AssertionError("no answer in 20 s");
    }
    throw new StatusRuntimeException((Status) answer);
  }

  /** Ends the stream from this side (half-close) and waits for the server to end it too. */
  Status finish() throws InterruptedException {
    requests.onCompleted();
    Object answer = answers.poll(20, TimeUnit.SECONDS);
    return answer instanceof Status ? (Status) answer : null;
  }

  static RateLimitQuotaUsageReports reports(String domain, BucketQuotaUsage... usages) {
    return RateLimitQuotaUsageReports.newBuilder().setDomain(domain)
        .addAllBucketQuotaUsages(java.util.List.of(usages)).build();
  }

  static BucketQuotaUsage usage(Map<String, String> bucket, long allowed, long denied,
      long elapsedMillis) {
    return BucketQuotaUsage.newBuilder().setBucketId(bucketId(bucket))
        .setNumRequestsAllowed(allowed).setNumRequestsDenied(denied)
        .setTimeElapsed(Duration.newBuilder().setSeconds(elapsedMillis / 1000)
            .setNanos((int) (elapsedMillis % 1000) * 1_000_000))
        .build();
  }

  static BucketId bucketId(Map<String, String> bucket) {
    return BucketId.newBuilder().putAllBucket(bucket).build();
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
