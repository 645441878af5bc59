package io.windowpane.server.rls;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.TimeUnit;

/** A grpc-java client of the rate limit service, from the Envoy API jar's generated stubs. */
final class RlsClient implements AutoCloseable {

  private final ManagedChannel channel;
  private final RateLimitServiceGrpc.RateLimitServiceBlockingStub stub;

  RlsClient(int port, String token) {
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    RateLimitServiceGrpc.RateLimitServiceBlockingStub s =
        RateLimitServiceGrpc.newBlockingStub(channel);
    if (token != null) {
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
          "Bearer " + token);
      s = s.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    stub = s;
  }

  RlsClient(int port) {
    this(port, null);
  }

  RateLimitResponse call(RateLimitRequest request) {
    return stub.withDeadlineAfter(10, TimeUnit.SECONDS).shouldRateLimit(request);
  }

  /** A request of {@code domain} with one descriptor per array, each "key=value" or "key=". */
  RateLimitResponse call(String domain, String[]... descriptors) {
    return call(request(domain, 0, descriptors));
  }

  static RateLimitRequest request(String domain, int hitsAddend, String[]... descriptors) {
    RateLimitRequest.Builder r = RateLimitRequest.newBuilder().setDomain(domain)
        .setHitsAddend(hitsAddend);
    for (String[] d : descriptors) {
      r.addDescriptors(descriptor(d));
    }
    return r.build();
  }

  static RateLimitDescriptor descriptor(String... entries) {
    RateLimitDescriptor.Builder b = RateLimitDescriptor.newBuilder();
    for (String e : entries) {
      int eq = e.indexOf('=');
      b.addEntriesBuilder().setKey(e.substring(0, eq)).setValue(e.substring(eq + 1));
    }
    return b.build();
  }

  static String[] d(String... entries) {
    return entries;
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
