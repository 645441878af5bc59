package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The service on failover chains without a backend process: a chain of the in-process engine
 * alone, and chains whose etcd member points at a closed port (every call and probe to it fails
 * at once), so the fallback and the last resort answer.
 */
class ChainApiTest {

  static String config(String chain, String onFailure) {
    return String.join("\n",
        "server:",
        "  port: 0",
        "engine:",
        "  chain: " + chain,
        "  onFailure: " + onFailure,
        "  etcd:",
        "    endpoints: [http://127.0.0.1:1]",
        "    timeout: 200ms",
        "    connectTimeout: 200ms",
        "  failover:",
        "    probeInterval: 20ms",
        "    probeTimeout: 50ms",
        "    callTimeout: 50ms",
        "limiters:",
        "  demo:",
        "    - name: demo",
        "      permits: 2",
        "      window: 10s",
        "      panes: 10",
        "counters:",
        "  requests:",
        "    window: 1m",
        "");
  }

  static WindowpaneServer serve(String yaml) throws Exception {
    return WindowpaneServer.start(ServerConfig.parse(yaml, "chain.yaml"));
  }

  /** Asks {@code path} until {@code ready} holds (the chain's thread trips members), at most 10 s. */
  static Reply await(Http http, String path, Predicate<Reply> ready) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    Reply r = http.get(path);
    while (!ready.test(r) && System.nanoTime() < deadline) {
      Thread.sleep(20);
      r = http.get(path);
    }
    return r;
  }

  static JsonNode member(Reply health, String engine) {
    for (JsonNode m : health.json().path("chain")) {
      if (m.path("engine").asText().equals(engine)) {
        return m;
      }
    }
    throw new AssertionError("no member " + engine + " in " + health.text());
  }

  @Test
  void localOnlyChain_answersFromLocal_andReportsTheChain() throws Exception {
    String yaml = config("[local]", "error").replace("  etcd:\n    endpoints:"
        + " [http://127.0.0.1:1]\n    timeout: 200ms\n    connectTimeout: 200ms\n", "");
    try (WindowpaneServer server = serve(yaml)) {
      Http http = new Http(server.url());
      Reply r = http.post("/v1/limiters/demo/acquire", "{\"key\":\"a\"}");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.json().path("engine").asText()).isEqualTo("local");
      assertThat(r.json().path("degraded").asBoolean()).isFalse();
      assertThat(r.header("RateLimit")).isPresent();

      Reply health = http.get("/health");
      assertThat(health.status()).isEqualTo(200);
      assertThat(health.json().path("status").asText()).isEqualTo("up");
      assertThat(health.json().path("engine").asText()).isEqualTo("failover");
      assertThat(health.json().path("active").asText()).isEqualTo("local");
      assertThat(health.json().path("degraded").asBoolean()).isFalse();
      assertThat(health.json().path("backend").path("status").asText()).isEqualTo("up");
      JsonNode local = member(health, "local");
      assertThat(local.path("health").asText()).isEqualTo("up");
      assertThat(local.path("signals")).isEmpty();
      assertThat(local.path("since").asText()).endsWith("Z");
      assertThat(local.path("replays").isBoolean()).isTrue();
      assertThat(local.path("pendingReplay").asLong()).isZero();

      assertThat(http.get("/metrics").text())
          .contains("windowpane_failover_health{engine=\"local\"} 0.0")
          .contains("windowpane_failover_active{engine=\"local\"} 1.0")
          .contains("windowpane_failover_trips_total 0.0")
          .contains("windowpane_failover_recoveries_total 0.0")
          .contains("windowpane_failover_replayed_events_total 0.0")
          .contains("windowpane_failover_dropped_events_total 0.0")
          .contains("windowpane_failover_lost_events_total 0.0");
    }
  }

  @Test
  void deadPrimary_localAnswersWithItsState_degraded_andHealthIs200() throws Exception {
    try (WindowpaneServer server = serve(config("[etcd, local]", "error"))) {
      Http http = new Http(server.url());
      Reply first = http.post("/v1/limiters/demo/acquire", "{\"key\":\"a\"}");
      assertThat(first.status()).isEqualTo(200);
      assertThat(first.json().path("engine").asText()).isEqualTo("local");
      assertThat(first.json().path("degraded").asBoolean()).isTrue();
      assertThat(first.json().path("remaining").asLong()).isEqualTo(1);
      assertThat(first.header("RateLimit")).isPresent(); // a fallback's answer has its state
      assertThat(http.post("/v1/limiters/demo/acquire", "{\"key\":\"a\"}").status())
          .isEqualTo(200);
      Reply denied = http.post("/v1/limiters/demo/acquire", "{\"key\":\"a\"}");
      assertThat(denied.status()).isEqualTo(429);
      assertThat(denied.json().path("deniedBy").path("name").asText()).isEqualTo("demo");
      assertThat(denied.json().path("engine").asText()).isEqualTo("local");
      assertThat(denied.json().path("degraded").asBoolean()).isTrue();
      assertThat(http.post("/v1/counters/requests/add", "{\"key\":\"a\"}").json()
          .path("count").asLong()).isEqualTo(1);

      Reply health = await(http, "/health",
          h -> member(h, "etcd").path("health").asText().equals("down"));
      assertThat(health.status()).isEqualTo(200);
      assertThat(health.json().path("status").asText()).isEqualTo("degraded");
      assertThat(health.json().path("active").asText()).isEqualTo("local");
      assertThat(health.json().path("degraded").asBoolean()).isTrue();
      assertThat(member(health, "etcd").path("health").asText()).isEqualTo("down");
      assertThat(member(health, "etcd").path("signals").toString()).contains("connect");
      assertThat(member(health, "local").path("health").asText()).isEqualTo("up");

      String metrics = http.get("/metrics").text();
      assertThat(metrics)
          .contains("windowpane_failover_health{engine=\"etcd\"} 2.0")
          .contains("windowpane_failover_active{engine=\"etcd\"} 0.0")
          .contains("windowpane_failover_active{engine=\"local\"} 1.0")
          .contains("windowpane_decisions_total{degraded=\"true\",limiter=\"demo\","
              + "outcome=\"denied\"} 1.0")
          .contains("windowpane_failover_trips_total 0.0"); // it started down: no trip
    }
  }

  @Test
  void noMemberTakesWrites_onFailureDeny_isTheLibrarysLastResort() throws Exception {
    try (WindowpaneServer server = serve(config("[etcd]", "deny"))) {
      Http http = new Http(server.url());
      Reply health = await(http, "/health", h -> h.status() == 503);
      assertThat(health.status()).isEqualTo(503);
      assertThat(health.json().path("status").asText()).isEqualTo("down");
      assertThat(health.json().path("active").asText()).isEqualTo("none");
      assertThat(health.json().path("backend").path("error").asText()).contains("etcd");

      Reply r = http.post("/v1/limiters/demo/acquire", "{\"key\":\"a\"}");
      assertThat(r.status()).as(r.text()).isEqualTo(429);
      assertThat(r.json().path("engine").asText()).isEqualTo("none");
      assertThat(r.json().path("degraded").asBoolean()).isTrue();
      assertThat(r.json().path("deniedBy").isNull()).isTrue();
      assertThat(r.json().path("remaining").asLong()).isZero();
      assertThat(r.json().path("resetMillis").asLong()).isZero();
      assertThat(r.json().path("retryAfterMillis").asLong()).isEqualTo(1_000);
      assertThat(r.header("RateLimit")).isEmpty();
      assertThat(r.header("Retry-After")).hasValue("1");
      assertThat(http.get("/metrics").text()).contains("windowpane_decisions_total{degraded="
          + "\"true\",limiter=\"demo\",outcome=\"denied\"} 1.0");
    }
  }

  @Test
  void noMemberAnswers_onFailureError_is503() throws Exception {
    try (WindowpaneServer server = serve(config("[etcd]", "error"))) {
      Reply r = new Http(server.url()).post("/v1/limiters/demo/acquire", "{\"key\":\"a\"}");
      assertThat(r.status()).isEqualTo(503);
      assertThat(r.error()).isEqualTo("backend_unavailable");
    }
  }
}
