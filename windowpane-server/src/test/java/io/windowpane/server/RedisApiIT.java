package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The HTTP API on the Redis engine, against a real redis-server started by the testkit. */
class RedisApiIT {

  static String config(RedisServer redis, String onFailure) {
    return String.join("\n",
        "server:",
        "  port: 0",
        "engine:",
        "  type: redis",
        "  onFailure: " + onFailure,
        "  redis:",
        "    uri: " + redis.uri(),
        "    timeout: 500ms",
        "    connectTimeout: 500ms",
        "limiters:",
        "  demo:",
        "    - name: demo",
        "      permits: 2",
        "      window: 10s",
        "      panes: 10",
        "  hundred:",
        "    - permits: 100",
        "      window: 1h",
        "      panes: 60",
        "counters:",
        "  requests:",
        "    window: 1m",
        "    algorithm: log",
        "stats:",
        "  latency:",
        "    window: 1m",
        "    panes: 12",
        "");
  }

  static WindowpaneServer serve(RedisServer redis, String onFailure) throws Exception {
    return WindowpaneServer.start(ServerConfig.parse(config(redis, onFailure), "redis.yaml"));
  }

  @Test
  void everyOperation_onRedis() throws Exception {
    try (RedisServer redis = RedisServer.start();
        WindowpaneServer server = serve(redis, "error")) {
      Http http = new Http(server.url());
      Reply first = http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\"}");
      assertThat(first.status()).isEqualTo(200);
      assertThat(first.json().path("engine").asText()).isEqualTo("redis");
      assertThat(first.json().path("remaining").asLong()).isEqualTo(1);
      assertThat(first.header("RateLimit-Policy")).hasValue("\"demo\";q=2;w=10");
      assertThat(http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\"}").status())
          .isEqualTo(200);
      Reply denied = http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\"}");
      assertThat(denied.status()).isEqualTo(429);
      assertThat(denied.json().path("retryAfterMillis").asLong()).isBetween(1L, 10_000L);
      assertThat(denied.header("Retry-After")).isPresent();

      JsonNode batch = http.post("/v1/limiters/demo/acquire-batch",
          "{\"keys\":[\"alice\",\"bob\"]}").json().path("decisions");
      assertThat(batch.get(0).path("allowed").asBoolean()).isFalse();
      assertThat(batch.get(1).path("allowed").asBoolean()).isTrue();

      assertThat(http.post("/v1/counters/requests/add", "{\"key\":\"k\",\"n\":5}").json()
          .path("count").asLong()).isEqualTo(5);
      assertThat(http.get("/v1/counters/requests/count?key=k").json().path("count").asLong())
          .isEqualTo(5);
      JsonNode counts = http.post("/v1/counters/requests/add-batch",
          "{\"keys\":[\"k\",\"j\"]}").json().path("counts");
      assertThat(counts.get(0).path("count").asLong()).isEqualTo(6);
      assertThat(http.post("/v1/counters/requests/count-batch", "{\"keys\":[\"j\"]}").json()
          .path("counts").get(0).path("count").asLong()).isEqualTo(1);

      assertThat(http.post("/v1/stats/latency/record",
          "{\"key\":\"s\",\"values\":[1,2,3,4]}").status()).isEqualTo(200);
      assertThat(http.post("/v1/stats/latency/record-batch",
          "{\"records\":[{\"key\":\"s\",\"value\":10}]}").status()).isEqualTo(200);
      JsonNode s = http.get("/v1/stats/latency/summary?key=s&quantiles=1").json();
      assertThat(s.path("count").asLong()).isEqualTo(5);
      assertThat(s.path("sum").asDouble()).isEqualTo(20.0);
      assertThat(s.path("max").asDouble()).isEqualTo(10.0);
      assertThat(s.path("quantiles").path("1").asDouble()).isEqualTo(10.0);
      assertThat(http.post("/v1/stats/latency/summary-batch", "{\"keys\":[\"s\",\"t\"]}").json()
          .path("summaries").get(1).path("count").asLong()).isZero();

      Reply health = http.get("/health");
      assertThat(health.status()).isEqualTo(200);
      assertThat(health.json().path("engine").asText()).isEqualTo("redis");
      assertThat(health.json().path("backend").path("latencyMillis").asDouble()).isPositive();
      assertThat(health.json().path("memory").path("level").asText())
          .as("the memory guard's reading").isEqualTo("normal");
      assertThat(health.json().path("memory").path("usedBytes").asLong()).isPositive();
      assertThat(http.get("/metrics").text()).contains("windowpane_redis_memory_level ",
          "windowpane_redis_memory_used_bytes ", "windowpane_redis_memory_refused_creations_total");
    }
  }

  @Test
  void concurrentRequests_overHttp_allowExactlyTheLimitAndCountEveryAdd() throws Exception {
    int threads = 8;
    int each = 40;
    try (RedisServer redis = RedisServer.start();
        WindowpaneServer server = serve(redis, "error")) {
      Http http = new Http(server.url());
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<int[]>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          results.add(pool.submit(() -> {
            int[] tally = new int[3];
            for (int i = 0; i < each; i++) {
              int status = http.post("/v1/limiters/hundred/acquire", "{\"key\":\"hot\"}").status();
              tally[status == 200 ? 0 : status == 429 ? 1 : 2]++;
              http.post("/v1/counters/requests/add", "{\"key\":\"hot\"}");
            }
            return tally;
          }));
        }
        int allowed = 0;
        int denied = 0;
        int other = 0;
        for (Future<int[]> f : results) {
          int[] tally = f.get(120, TimeUnit.SECONDS);
          allowed += tally[0];
          denied += tally[1];
          other += tally[2];
        }
        assertThat(allowed).isEqualTo(100);
        assertThat(denied).isEqualTo(threads * each - 100);
        assertThat(other).isZero();
        assertThat(http.get("/v1/counters/requests/count?key=hot").json().path("count").asLong())
            .isEqualTo(threads * each);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void backendDown_isA503WithAClearBody_andHealthSaysDown() throws Exception {
    RedisServer redis = RedisServer.start();
    try (WindowpaneServer server = serve(redis, "error")) {
      Http http = new Http(server.url());
      assertThat(http.post("/v1/limiters/demo/acquire", "{\"key\":\"a\"}").status())
          .isEqualTo(200);
      redis.close();

      long start = System.nanoTime();
      Reply acquire = http.post("/v1/limiters/demo/acquire", "{\"key\":\"a\"}");
      assertThat(acquire.status()).isEqualTo(503);
      assertThat(acquire.error()).isEqualTo("backend_unavailable");
      assertThat(acquire.json().path("message").asText()).contains("redis");
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3_000);
      assertThat(http.post("/v1/counters/requests/add", "{\"key\":\"a\"}").status())
          .isEqualTo(503);
      assertThat(http.get("/v1/stats/latency/summary?key=a").status()).isEqualTo(503);

      Reply health = http.get("/health");
      assertThat(health.status()).isEqualTo(503);
      assertThat(health.json().path("status").asText()).isEqualTo("down");
      assertThat(health.json().path("backend").path("status").asText()).isEqualTo("down");
      assertThat(health.json().path("backend").path("error").asText()).isNotBlank();
      assertThat(http.get("/health/live").status()).isEqualTo(200);
      assertThat(http.get("/metrics").text())
          .contains("windowpane_errors_total{error=\"backend_unavailable\"} 3.0")
          .contains("windowpane_backend_seconds_count{operation=\"acquire\",outcome=\"error\"} 1");
    } finally {
      redis.close();
    }
  }

  @Test
  void backendDown_onFailureAllow_allowsDegraded() throws Exception {
    RedisServer redis = RedisServer.start();
    try (WindowpaneServer server = serve(redis, "allow")) {
      redis.close();
      Reply r = new Http(server.url()).post("/v1/limiters/demo/acquire", "{\"key\":\"a\"}");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.json().path("allowed").asBoolean()).isTrue();
      assertThat(r.json().path("degraded").asBoolean()).isTrue();
      assertThat(r.json().path("remaining").asLong()).isZero();
      assertThat(r.header("RateLimit")).isEmpty();
      assertThat(new Http(server.url()).get("/metrics").text()).contains(
          "windowpane_decisions_total{degraded=\"true\",limiter=\"demo\",outcome=\"allowed\"} 1.0");
      // counters have no policy: still a 503
      assertThat(new Http(server.url()).post("/v1/counters/requests/add", "{\"key\":\"a\"}")
          .status()).isEqualTo(503);
    } finally {
      redis.close();
    }
  }

  @Test
  void backendDown_onFailureDeny_deniesDegraded() throws Exception {
    RedisServer redis = RedisServer.start();
    try (WindowpaneServer server = serve(redis, "deny")) {
      redis.close();
      Reply r = new Http(server.url()).post("/v1/limiters/demo/acquire", "{\"key\":\"a\"}");
      assertThat(r.status()).isEqualTo(429);
      assertThat(r.json().path("allowed").asBoolean()).isFalse();
      assertThat(r.json().path("degraded").asBoolean()).isTrue();
      assertThat(r.json().path("deniedBy").isNull()).isTrue();
      assertThat(r.json().path("retryAfterMillis").asLong()).isEqualTo(1_000);
      assertThat(r.header("Retry-After")).hasValue("1");
      JsonNode batch = new Http(server.url()).post("/v1/limiters/demo/acquire-batch",
          "{\"keys\":[\"a\",\"b\"]}").json().path("decisions");
      assertThat(batch).hasSize(2);
      assertThat(batch.get(1).path("allowed").asBoolean()).isFalse();
      assertThat(batch.get(1).path("degraded").asBoolean()).isTrue();
    } finally {
      redis.close();
    }
  }

  @Test
  void acquireBatch_underMemoryPressure_redisDecidesExistingKeys_onFailureTheNewOnes()
      throws Exception {
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client();
        WindowpaneServer server = WindowpaneServer.start(ServerConfig.parse(config(redis, "deny")
            .replace("    connectTimeout: 500ms\n", "    connectTimeout: 500ms\n"
                + "    memoryGuard:\n      checkInterval: 20ms\n"), "redis.yaml"))) {
      Http http = new Http(server.url());
      assertThat(http.post("/v1/limiters/hundred/acquire", "{\"key\":\"alice\"}").json()
          .path("remaining").asLong()).isEqualTo(99);
      Matcher used = Pattern.compile("used_memory:(\\d+)")
          .matcher(String.valueOf(admin.command("INFO", "memory")));
      assertThat(used.find()).isTrue();
      admin.command("CONFIG", "SET", "maxmemory",
          Long.toString((long) (Long.parseLong(used.group(1)) / 0.90)));
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!http.get("/health").json().path("memory").path("level").asText()
          .equals("pressure") && System.nanoTime() < deadline) {
        LockSupport.parkNanos(20_000_000); // the guard reads every 20 ms: pacing the polls
      }
      assertThat(http.get("/health").json().path("memory").path("level").asText())
          .isEqualTo("pressure");
      JsonNode batch = http.post("/v1/limiters/hundred/acquire-batch",
          "{\"keys\":[\"alice\",\"carol\"]}").json().path("decisions");
      assertThat(batch.get(0).path("remaining").asLong()).as("decided by Redis, once")
          .isEqualTo(98);
      assertThat(batch.get(0).path("degraded").asBoolean()).isFalse();
      assertThat(batch.get(1).path("allowed").asBoolean()).as("a new key: onFailure deny")
          .isFalse();
      assertThat(batch.get(1).path("degraded").asBoolean()).isTrue();
    }
  }
}
