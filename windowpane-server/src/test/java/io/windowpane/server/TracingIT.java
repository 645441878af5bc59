package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.server.tracing.OtlpReceiver;
import io.windowpane.server.tracing.OtlpReceiver.Span;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The service's OTLP export on the chain [redis, local] against a real redis-server, which is
 * then killed: an OTLP/HTTP receiver in the test decodes the spans and checks the tree. The
 * decision joins the caller's trace (traceparent), names the member that answered, and each
 * backend call is its child; after the kill the fallback's call says it is a fallback and the
 * decision that it was degraded.
 */
@ExtendWith(RedisServerExtension.class)
class TracingIT {

  static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String CALLER_SPAN = "00f067aa0ba902b7";

  @Test
  void chain_decisionSpansWithACallPerMember_andTheFallbacksSpanSaysSo(RedisServer redis)
      throws Exception {
    Reply before;
    Reply after;
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      String yaml = ChainFailoverIT.config(redis) + String.join("\n",
          "tracing:",
          "  otlp:",
          "    endpoint: " + receiver.endpoint(),
          "  samplingRatio: 1.0", "");
      try (WindowpaneServer server = WindowpaneServer.start(
          ServerConfig.parse(yaml, "traced-chain.yaml"))) {
        Http http = new Http(server.url());
        ChainApiTest.await(http, "/health",
            h -> h.json().path("active").asText().equals("redis"));
        before = http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\"}",
            "traceparent", "00-" + TRACE + "-" + CALLER_SPAN + "-01");
        redis.kill();
        after = http.post("/v1/limiters/demo/acquire", "{\"key\":\"bob\"}");
      } // closing sends the spans not sent yet
      System.out.println("Decoded span tree:\n" + receiver.tree());

      assertThat(before.json().path("engine").asText()).isEqualTo("redis");
      assertThat(after.json().path("engine").asText()).isEqualTo("local");
      assertThat(receiver.serviceNames).containsOnly("windowpane");
      List<Span> spans = receiver.spans;

      Span first = decision(spans, "redis");
      assertThat(first.name()).isEqualTo("acquire demo");
      assertThat(first.traceId()).isEqualTo(TRACE);
      assertThat(first.parentSpanId()).isEqualTo(CALLER_SPAN);
      assertThat(first.attributes()).containsEntry("windowpane.limiter", "demo")
          .containsEntry("windowpane.engine", "failover")
          .containsEntry("windowpane.outcome", "allowed")
          .containsEntry("windowpane.degraded", "false");
      assertThat(children(spans, first)).singleElement().satisfies(c -> {
        assertThat(c.name()).isEqualTo("redis tryAcquire");
        assertThat(c.traceId()).isEqualTo(TRACE);
        assertThat(c.attributes()).containsEntry("windowpane.member", "redis")
            .containsEntry("windowpane.fallback", "false");
        assertThat(c.statusCode()).isNotEqualTo(2);
      });

      Span degraded = decision(spans, "local");
      assertThat(degraded.traceId()).isNotEqualTo(TRACE);
      assertThat(degraded.parentSpanId()).isEmpty();
      assertThat(degraded.attributes()).containsEntry("windowpane.degraded", "true")
          .containsEntry("windowpane.outcome", "allowed");
      List<Span> calls = children(spans, degraded);
      assertThat(calls).last().satisfies(c -> {
        assertThat(c.name()).isEqualTo("local tryAcquire");
        assertThat(c.attributes()).containsEntry("windowpane.fallback", "true");
      });
      // Redis was asked first unless a probe had already tripped it: then its call failed
      assertThat(calls.subList(0, calls.size() - 1)).allSatisfy(c -> {
        assertThat(c.name()).isEqualTo("redis tryAcquire");
        assertThat(c.statusCode()).isEqualTo(2);
      });
    }
  }

  static Span decision(List<Span> spans, String member) {
    return spans.stream().filter(s -> s.attributes().containsKey("windowpane.outcome")
        && member.equals(s.attribute("windowpane.member"))).findFirst()
        .orElseThrow(() -> new AssertionError("no decision answered by " + member + " in "
            + spans));
  }

  static List<Span> children(List<Span> spans, Span parent) {
    return spans.stream().filter(s -> s.parentSpanId().equals(parent.spanId())).toList();
  }
}
