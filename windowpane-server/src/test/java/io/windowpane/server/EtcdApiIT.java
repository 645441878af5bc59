package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The service on the etcd engine, against a real etcd started by the testkit. */
@ExtendWith(EtcdServerExtension.class)
class EtcdApiIT {

  static String config(EtcdServer etcd) {
    return String.join("\n",
        "server:",
        "  port: 0",
        "engine:",
        "  type: etcd",
        "  etcd:",
        "    endpoints: [" + etcd.endpoint() + "]",
        "    namespace: server-it",
        "    connectTimeout: 5s",
        "limiters:",
        "  demo:",
        "    - name: demo",
        "      permits: 2",
        "      window: 10s",
        "      panes: 10",
        "counters:",
        "  requests:",
        "    window: 1m",
        "stats:",
        "  latency:",
        "    window: 1m",
        "    panes: 6",
        "");
  }

  @Test
  void everyKindOfWindow_onEtcd(EtcdServer etcd) throws Exception {
    try (WindowpaneServer server = WindowpaneServer.start(
        ServerConfig.parse(config(etcd), "etcd.yaml"))) {
      assertThat(server.engineName()).isEqualTo("etcd");
      Http http = new Http(server.url());
      Reply first = http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\"}");
      assertThat(first.status()).isEqualTo(200);
      assertThat(first.json().path("engine").asText()).isEqualTo("etcd");
      assertThat(first.json().path("degraded").asBoolean()).isFalse();
      assertThat(first.json().path("remaining").asLong()).isEqualTo(1);
      assertThat(http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\"}").status())
          .isEqualTo(200);
      Reply denied = http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\"}");
      assertThat(denied.status()).isEqualTo(429);
      assertThat(denied.json().path("deniedBy").path("name").asText()).isEqualTo("demo");

      assertThat(http.post("/v1/counters/requests/add", "{\"key\":\"k\",\"n\":4}").json()
          .path("count").asLong()).isEqualTo(4);
      assertThat(http.get("/v1/counters/requests/count?key=k").json().path("count").asLong())
          .isEqualTo(4);
      assertThat(http.post("/v1/stats/latency/record", "{\"key\":\"s\",\"values\":[1,3]}")
          .status()).isEqualTo(200);
      assertThat(http.get("/v1/stats/latency/summary?key=s").json().path("sum").asDouble())
          .isEqualTo(4.0);

      Reply health = http.get("/health");
      assertThat(health.status()).isEqualTo(200);
      assertThat(health.json().path("engine").asText()).isEqualTo("etcd");
      assertThat(health.json().path("backend").path("status").asText()).isEqualTo("up");
      assertThat(health.json().has("chain")).isFalse();
    }
  }

  @Test
  void etcdFlag_servesTheSameEngine(EtcdServer etcd) throws Exception {
    ServerConfig c = ServerConfig.parse(config(etcd), "etcd.yaml")
        .withEngines(null, List.of(etcd.endpoint()), false);
    try (WindowpaneServer server = WindowpaneServer.start(c)) {
      Reply r = new Http(server.url()).post("/v1/limiters/demo/acquire", "{\"key\":\"bob\"}");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.json().path("engine").asText()).isEqualTo("etcd");
    }
  }
}
