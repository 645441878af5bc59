package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.config.ConfigException;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.server.tracing.OtlpReceiver;
import io.windowpane.server.tracing.OtlpReceiver.Span;
import org.junit.jupiter.api.Test;

/**
 * The {@code tracing} section: off by default, its values checked, and the sampling ratio
 * applied to the traces that start at the service while a caller's sampled traceparent is
 * followed; on the in-process engine (the chain and Redis are in {@link TracingIT}).
 */
class TracingTest {

  static final String LIMITER = String.join("\n", "server:", "  port: 0",
      "limiters:", "  demo:", "    - { name: demo, permits: 5, window: 10s }", "");

  @Test
  void tracing_isOffByDefault() throws Exception {
    ServerConfig config = ServerConfig.parse(LIMITER, "t.yaml");
    assertThat(config.otlpEndpoint()).isEmpty();
    assertThat(config.samplingRatio()).isEqualTo(1.0);
  }

  @Test
  void badEndpointOrRatio_isRefused_namingTheField() {
    assertThatThrownBy(() -> ServerConfig.parse(LIMITER + String.join("\n", "tracing:",
        "  otlp: { endpoint: 'ftp://x/v1/traces' }", "  samplingRatio: 1.5", ""), "t.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("tracing.otlp.endpoint must be an http:// or https:// URL")
        .hasMessageContaining("tracing.samplingRatio must be a number in [0, 1], was 1.5");
    assertThatThrownBy(() -> ServerConfig.parse(LIMITER + "tracing: { samplingRatio: 0.5 }\n",
        "t.yaml")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("tracing needs otlp.endpoint");
    assertThatThrownBy(() -> ServerConfig.defaults().withTracing("http://h/v1/traces", -0.1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tracing.samplingRatio must be in [0, 1], was -0.1");
  }

  @Test
  void ratioZero_sendsOnlyTheTracesACallerSampled_singleEngineCallsAreChildren()
      throws Exception {
    ManualClock clock = ManualClock.at(1_700_000_000_250L);
    String trace = "0af7651916cd43dd8448eb211c80319c";
    try (OtlpReceiver receiver = new OtlpReceiver()) {
      ServerConfig config = ServerConfig.parse(LIMITER, "t.yaml")
          .withTracing(receiver.endpoint(), 0.0);
      try (WindowpaneServer server = WindowpaneServer.start(config,
          Windowpane.localBuilder().clock(clock).buildEngine(), clock)) {
        Http http = new Http(server.url());
        for (int i = 0; i < 3; i++) {
          assertThat(http.post("/v1/limiters/demo/acquire", "{\"key\":\"k\"}").status())
              .isEqualTo(200);
        }
        assertThat(http.post("/v1/limiters/demo/acquire-batch", "{\"keys\":[\"k\",\"j\"]}",
            "traceparent", "00-" + trace + "-b7ad6b7169203331-01").status()).isEqualTo(200);
      }
      assertThat(receiver.spans).extracting(Span::traceId).containsOnly(trace);
      Span decision = TracingIT.decision(receiver.spans, "local");
      assertThat(decision.name()).isEqualTo("acquire-batch demo");
      assertThat(decision.attributes()).containsEntry("windowpane.engine", "local")
          .containsEntry("windowpane.outcome", "allowed")
          .containsEntry("windowpane.degraded", "false");
      assertThat(TracingIT.children(receiver.spans, decision)).singleElement()
          .satisfies(c -> assertThat(c.name()).isEqualTo("local tryAcquireAll"));
    }
  }
}
