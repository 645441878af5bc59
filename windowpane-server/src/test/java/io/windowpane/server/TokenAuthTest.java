package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** With tokens configured, /v1 and /metrics need one; /health and the OpenAPI document do not. */
class TokenAuthTest {

  static final String TOKEN = "first-token-0123456789abcdef";
  static final String OTHER = "second-token-0123456789abcdef";

  WindowpaneServer server;
  Http anonymous;

  @BeforeEach
  void start() throws Exception {
    server = WindowpaneServer.start(ServerConfig.parse(String.join("\n",
        "server:",
        "  port: 0",
        "auth:",
        "  tokens: [" + TOKEN + ", " + OTHER + "]",
        "limiters:",
        "  demo:",
        "    - permits: 2",
        "      window: 10s",
        ""), "auth.yaml"));
    anonymous = new Http(server.url());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void noToken_is401WithAChallengeAndRecordsNothing() {
    Reply r = anonymous.post("/v1/limiters/demo/acquire", "{\"key\":\"a\"}");
    assertThat(r.status()).isEqualTo(401);
    assertThat(r.error()).isEqualTo("unauthorized");
    assertThat(r.header("WWW-Authenticate")).hasValue("Bearer realm=\"windowpane\"");
    assertThat(anonymous.get("/v1/limiters").status()).isEqualTo(401);
    assertThat(anonymous.get("/metrics").status()).isEqualTo(401);
    assertThat(anonymous.get("/v1/no-such-path").status()).isEqualTo(401);
    assertThat(anonymous.get("/healthz").status()).isEqualTo(401);
    assertThat(anonymous.get("/health/other").status()).isEqualTo(401);
    // the refused request took no permit
    Reply ok = anonymous.withToken(TOKEN)
        .post("/v1/limiters/demo/acquire", "{\"key\":\"a\",\"permits\":2}");
    assertThat(ok.status()).isEqualTo(200);
  }

  @Test
  void wrongToken_is401() {
    assertThat(anonymous.withToken(TOKEN + "x").get("/v1/limiters").status()).isEqualTo(401);
    assertThat(anonymous.withToken("").get("/v1/limiters").status()).isEqualTo(401);
    Reply basic = anonymous.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(server.url() + "/v1/limiters"))
        .header("Authorization", "Basic " + TOKEN));
    assertThat(basic.status()).isEqualTo(401);
  }

  @Test
  void anyConfiguredToken_isAccepted() {
    assertThat(anonymous.withToken(TOKEN).get("/v1/limiters").status()).isEqualTo(200);
    assertThat(anonymous.withToken(OTHER).get("/v1/limiters").status()).isEqualTo(200);
    assertThat(anonymous.withToken(OTHER).get("/metrics").status()).isEqualTo(200);
  }

  @Test
  void healthAndTheApiDocument_needNoToken() {
    assertThat(anonymous.get("/health").status()).isEqualTo(200);
    assertThat(anonymous.get("/health/live").status()).isEqualTo(200);
    assertThat(anonymous.get("/v1/openapi.yaml").status()).isEqualTo(200);
  }
}
