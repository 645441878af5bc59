package io.windowpane.server.rls;

import static io.windowpane.server.rls.RlsClient.d;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.windowpane.server.WindowpaneServer;
import io.windowpane.server.config.ServerConfig;
import org.junit.jupiter.api.Test;

/** The rate limit service takes the HTTP API's tokens as gRPC metadata. */
class RlsAuthTest {

  static final String TOKEN = "s3cret-token-0001";

  @Test
  void withTokens_callsWithoutTheRightBearerTokenAreUnauthenticated() throws Exception {
    String yaml = EnvoyRlsTest.config(EnvoyRlsTest.rules(),
        "auth:\n  tokens: [ \"" + TOKEN + "\" ]");
    try (WindowpaneServer server = WindowpaneServer.start(ServerConfig.parse(yaml, "t.yaml"))) {
      int port = server.grpcPort().getAsInt();
      try (RlsClient none = new RlsClient(port);
          RlsClient wrong = new RlsClient(port, "s3cret-token-9999");
          RlsClient right = new RlsClient(port, TOKEN)) {
        for (RlsClient refused : new RlsClient[] {none, wrong}) {
          assertThatThrownBy(() -> refused.call("messaging", d("to_number=1")))
              .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(
                  e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
        }
        // The refused calls counted nothing.
        assertThat(right.call("messaging", d("to_number=1")).getStatuses(0)
            .getLimitRemaining()).isEqualTo(99);
        assertThat(right.call("messaging", d("to_number=1")).getOverallCode())
            .isEqualTo(Code.OK);
      }
    }
  }

  @Test
  void offByDefault_andBindsTheHttpHost() throws Exception {
    try (WindowpaneServer server = WindowpaneServer.start(
        ServerConfig.parse("server:\n  port: 0\n", "t.yaml"))) {
      assertThat(server.grpcPort()).isEmpty();
    }
    ServerConfig rls = ServerConfig.parse(EnvoyRlsTest.config(EnvoyRlsTest.rules(), ""), "t");
    assertThat(rls.host()).isEqualTo("127.0.0.1");
    assertThat(rls.grpcPort()).hasValue(0);
  }
}
