package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A limiter with {@code shadow: true} decides and counts like the others but never denies. */
class ShadowModeTest {

  static final String CONFIG = String.join("\n",
      "server:",
      "  port: 0",
      "limiters:",
      "  trial:",
      "    shadow: true",
      "    limits:",
      "      - name: trial",
      "        permits: 1",
      "        window: 10s",
      "        panes: 10",
      "  enforced:",
      "    shadow: false",
      "    limits: [ { name: enforced, permits: 1, window: 10s } ]",
      "");

  ManualClock clock;
  WindowpaneServer server;
  Http http;

  @BeforeEach
  void start() throws Exception {
    clock = ManualClock.at(LocalApiTest.START);
    server = WindowpaneServer.start(ServerConfig.parse(CONFIG, "test.yaml"),
        Windowpane.localBuilder().clock(clock).build(), clock);
    http = new Http(server.url());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void acquire_shadowLimiterOverItsLimit_allowedAndMarkedWouldDeny() {
    Reply first = http.post("/v1/limiters/trial/acquire", "{\"key\":\"k\"}");
    assertThat(first.status()).isEqualTo(200);
    assertThat(first.text()).isEqualTo("{\"limiter\":\"trial\",\"key\":\"k\",\"permits\":1,"
        + "\"allowed\":true,\"remaining\":0,\"retryAfterMillis\":0,\"resetMillis\":9750,"
        + "\"deniedBy\":null,\"engine\":\"local\",\"degraded\":false,\"shadow\":true,"
        + "\"wouldDeny\":false}");

    Reply second = http.post("/v1/limiters/trial/acquire", "{\"key\":\"k\"}");
    assertThat(second.status()).isEqualTo(200);
    assertThat(second.text()).isEqualTo("{\"limiter\":\"trial\",\"key\":\"k\",\"permits\":1,"
        + "\"allowed\":true,\"remaining\":0,\"retryAfterMillis\":9750,\"resetMillis\":9750,"
        + "\"deniedBy\":{\"name\":\"trial\",\"permits\":1,\"windowMillis\":10000},"
        + "\"engine\":\"local\",\"degraded\":false,\"shadow\":true,\"wouldDeny\":true}");
    assertThat(second.header("RateLimit-Policy")).contains("\"trial\";q=1;w=10");
    assertThat(second.header("RateLimit")).contains("\"trial\";r=0;t=10");
    assertThat(second.header("Retry-After")).isEmpty();

    String metrics = http.get("/metrics").text();
    assertThat(metrics)
        .contains("windowpane_decisions_total{degraded=\"false\",limiter=\"trial\","
            + "outcome=\"allowed\"} 1.0")
        .contains("windowpane_decisions_total{degraded=\"false\",limiter=\"trial\","
            + "outcome=\"would_deny\"} 1.0")
        .contains("windowpane_decisions_total{degraded=\"false\",limiter=\"trial\","
            + "outcome=\"denied\"} 0.0");
  }

  @Test
  void acquire_limiterWithShadowFalse_deniesAsUsual() {
    http.post("/v1/limiters/enforced/acquire", "{\"key\":\"k\"}");
    Reply denied = http.post("/v1/limiters/enforced/acquire", "{\"key\":\"k\"}");
    assertThat(denied.status()).isEqualTo(429);
    assertThat(denied.json().path("allowed").asBoolean()).isFalse();
    assertThat(denied.json().path("shadow").asBoolean()).isFalse();
    assertThat(denied.json().has("wouldDeny")).isFalse();
  }

  @Test
  void describe_namesTheShadowLimiters() {
    assertThat(http.get("/v1/limiters/trial").json().path("shadow").asBoolean()).isTrue();
    assertThat(http.get("/v1/limiters").json().path("limiters").get(1).path("shadow").asBoolean())
        .isFalse();
  }

  @Test
  void acquireBatch_shadowLimiter_everyKeyAllowed() {
    Reply batch = http.post("/v1/limiters/trial/acquire-batch", "{\"keys\":[\"a\",\"a\"]}");
    assertThat(batch.status()).isEqualTo(200);
    assertThat(batch.json().path("decisions").get(0).path("wouldDeny").asBoolean()).isFalse();
    assertThat(batch.json().path("decisions").get(1).path("allowed").asBoolean()).isTrue();
    assertThat(batch.json().path("decisions").get(1).path("wouldDeny").asBoolean()).isTrue();
  }
}
