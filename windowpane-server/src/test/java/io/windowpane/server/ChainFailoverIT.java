package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The service on the chain [redis, local] against a real redis-server, which is then killed:
 * acquire keeps answering from the local engine, marked degraded, and {@code /health} stays 200
 * with Redis down and local active.
 */
@ExtendWith(RedisServerExtension.class)
class ChainFailoverIT {

  static String config(RedisServer redis) {
    return String.join("\n",
        "server:",
        "  port: 0",
        "engine:",
        "  chain: [redis, local]",
        "  redis:",
        "    uri: " + redis.uri(),
        "    timeout: 1s",
        "    connectTimeout: 5s", // a cold JVM on a busy machine: the first connect is slow
        // Generous timeouts: a killed Redis refuses at once, so detection stays fast, while a
        // busy 2-core machine does not trip a live Redis by a slow probe or call.
        "  failover:",
        "    probeInterval: 50ms",
        "    probeTimeout: 1s",
        "    callTimeout: 1s",
        "    latencyThreshold: 1s",
        "limiters:",
        "  demo:",
        "    - name: demo",
        "      permits: 3",
        "      window: 10s",
        "      panes: 10",
        "");
  }

  @Test
  void redisKilled_localAnswersDegraded_andHealthStays200(RedisServer redis) throws Exception {
    try (WindowpaneServer server = WindowpaneServer.start(
        ServerConfig.parse(config(redis), "chain.yaml"))) {
      Http http = new Http(server.url());
      ChainApiTest.await(http, "/health", h -> h.json().path("active").asText().equals("redis"));
      Reply before = http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\"}");
      assertThat(before.status()).isEqualTo(200);
      assertThat(before.json().path("engine").asText()).isEqualTo("redis");
      assertThat(before.json().path("degraded").asBoolean()).isFalse();
      Reply up = http.get("/health");
      assertThat(up.status()).isEqualTo(200);
      assertThat(up.json().path("status").asText()).isEqualTo("up");
      assertThat(up.json().path("active").asText()).isEqualTo("redis");
      assertThat(ChainApiTest.member(up, "redis").path("health").asText()).isEqualTo("up");

      redis.kill();

      for (int i = 0; i < 5; i++) { // 3 permits: 3 allowed, then denied, by the local engine
        long start = System.nanoTime();
        Reply r = http.post("/v1/limiters/demo/acquire", "{\"key\":\"bob\"}");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000);
        assertThat(r.status()).as(r.text()).isEqualTo(i < 3 ? 200 : 429);
        assertThat(r.json().path("engine").asText()).isEqualTo("local");
        assertThat(r.json().path("degraded").asBoolean()).isTrue();
      }

      Reply health = ChainApiTest.await(http, "/health",
          h -> ChainApiTest.member(h, "redis").path("health").asText().equals("down"));
      assertThat(health.status()).isEqualTo(200);
      assertThat(health.json().path("status").asText()).isEqualTo("degraded");
      assertThat(health.json().path("degraded").asBoolean()).isTrue();
      assertThat(health.json().path("active").asText()).isEqualTo("local");
      assertThat(ChainApiTest.member(health, "redis").path("health").asText()).isEqualTo("down");
      assertThat(ChainApiTest.member(health, "local").path("health").asText()).isEqualTo("up");
      // bob's three allowed permits: journaled for Redis if its engine takes replays, else lost
      JsonNode redisState = ChainApiTest.member(health, "redis");
      String metrics = http.get("/metrics").text();
      if (redisState.path("replays").asBoolean()) {
        assertThat(redisState.path("pendingReplay").asLong()).isEqualTo(3);
      } else {
        assertThat(metrics).contains("windowpane_failover_lost_events_total 3.0");
      }
      assertThat(metrics)
          .contains("windowpane_failover_health{engine=\"redis\"} 2.0")
          .contains("windowpane_failover_active{engine=\"local\"} 1.0")
          .contains("windowpane_failover_trips_total")
          .doesNotContain("windowpane_failover_trips_total 0.0");
    }
  }
}
