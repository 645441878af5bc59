package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.testkit.redis.RedisServer;
import org.junit.jupiter.api.Test;

/**
 * The service on the chain [redis, local] started while nothing listens on Redis's port: it
 * starts, answers from the local engine (degraded), says so in {@code /health} (200, the Redis
 * member down by the signal {@code connect}); once redis-server starts on that port the chain
 * goes back to Redis by itself, and Redis holds every permit taken during the outage.
 */
class ChainStartDuringOutageIT {

  @Test
  void serveWithRedisDown_startsOnLocal_thenJoinsRedisWithEveryPermit() throws Exception {
    int port = RedisServer.freePort();
    String config = String.join("\n",
        "server:",
        "  port: 0",
        "engine:",
        "  chain: [redis, local]",
        "  redis:",
        "    uri: redis://127.0.0.1:" + port,
        "    timeout: 1s",
        "    connectTimeout: 1s",
        "  failover:",
        "    probeInterval: 50ms",
        "    probeTimeout: 1s",
        "    callTimeout: 1s",
        "    latencyThreshold: 1s",
        "limiters:",
        "  demo:",
        "    - name: demo",
        "      permits: 100",
        "      window: 60s",
        "      panes: 60",
        "");
    long t0 = System.nanoTime();
    try (WindowpaneServer server = WindowpaneServer.start(ServerConfig.parse(config, "c.yaml"))) {
      Http http = new Http(server.url());
      Reply first = http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\",\"permits\":7}");
      long startMillis = (System.nanoTime() - t0) / 1_000_000;
      assertThat(first.status()).as(first.text()).isEqualTo(200);
      assertThat(first.json().path("engine").asText()).isEqualTo("local");
      assertThat(first.json().path("degraded").asBoolean()).isTrue();
      assertThat(startMillis).as("from start to the first answer").isLessThan(10_000);

      Reply health = http.get("/health");
      assertThat(health.status()).isEqualTo(200);
      assertThat(health.json().path("status").asText()).isEqualTo("degraded");
      assertThat(health.json().path("active").asText()).isEqualTo("local");
      assertThat(ChainApiTest.member(health, "redis").path("health").asText()).isEqualTo("down");
      assertThat(ChainApiTest.member(health, "redis").path("signals").toString())
          .contains("connect");

      try (RedisServer redis = RedisServer.startOn(port)) {
        ChainApiTest.await(http, "/health",
            h -> h.json().path("active").asText().equals("redis"));
        Reply after = http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\"}");
        assertThat(after.json().path("engine").asText()).isEqualTo("redis");
        // answered by Redis: the 7 permits taken by the local engine were replayed into it
        assertThat(after.json().path("remaining").asLong()).isEqualTo(100 - 7 - 1);
      }
    }
  }
}
