package io.windowpane.server.rls;

import static io.windowpane.server.rls.RlsClient.d;
import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.server.WindowpaneServer;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.server.tracing.OtlpReceiver;
import io.windowpane.server.tracing.OtlpReceiver.Span;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Envoy RLS with tracing on: each ShouldRateLimit is one span in the trace of the
 * traceparent Envoy sends in the call's metadata, tagged with Envoy's answer, and each
 * descriptor decided is a backend call under it.
 */
class RlsTracingTest {

  @Test
  void shouldRateLimit_isASpanInTheCallersTrace_withTheEngineCallsUnderIt() throws Exception {
    ManualClock clock = ManualClock.at(EnvoyRlsTest.START);
    String trace = "5b8efff798038103d269b633813fc60c";
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      ServerConfig config = ServerConfig.parse(EnvoyRlsTest.config(EnvoyRlsTest.rules(), ""),
          "rls.yaml").withTracing(receiver.endpoint(), 1.0);
      try (WindowpaneServer server = WindowpaneServer.start(config,
          Windowpane.localBuilder().clock(clock).buildEngine(), clock)) {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER),
            "00-" + trace + "-eee19b7ec3c1b174-01");
        ManagedChannel channel = NettyChannelBuilder
            .forAddress("127.0.0.1", server.grpcPort().getAsInt()).usePlaintext().build();
        try {
          var stub = RateLimitServiceGrpc.newBlockingStub(channel)
              .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
          assertThat(stub.withDeadlineAfter(10, TimeUnit.SECONDS).shouldRateLimit(
              RlsClient.request("messaging", 0, d("message_type=marketing",
                  "to_number=2061111111"))).getOverallCode()).isEqualTo(Code.OK);
        } finally {
          channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
      }
      List<Span> spans = receiver.spans;
      Span decision = spans.stream().filter(s -> s.name().equals("ShouldRateLimit messaging"))
          .findFirst().orElseThrow(() -> new AssertionError(receiver.tree()));
      assertThat(decision.traceId()).isEqualTo(trace);
      assertThat(decision.parentSpanId()).isEqualTo("eee19b7ec3c1b174");
      assertThat(decision.attributes()).containsEntry("windowpane.domain", "messaging")
          .containsEntry("windowpane.outcome", "allowed")
          .containsEntry("windowpane.engine", "local");
      assertThat(spans).filteredOn(s -> s.parentSpanId().equals(decision.spanId()))
          .extracting(Span::name).isNotEmpty().allMatch(n -> n.startsWith("local "));
    }
  }
}
