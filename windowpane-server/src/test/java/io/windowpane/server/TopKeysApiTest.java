package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.config.ConfigException;
import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code GET .../top} and {@code GET /v1/limiters/{name}/peek} over real HTTP on the local
 * engine, with a manual clock; the service's default {@code server.topKeys} (100) turns top keys
 * on for every window.
 */
class TopKeysApiTest {

  private static final long START = LocalApiTest.START;

  private ManualClock clock;
  private WindowpaneServer server;
  private Http http;

  @BeforeEach
  void start() throws Exception {
    clock = ManualClock.at(START);
    server = WindowpaneServer.start(ServerConfig.parse(LocalApiTest.CONFIG, "test.yaml"),
        Windowpane.localBuilder().clock(clock).build(), clock);
    http = new Http(server.url());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static List<String> keysOf(JsonNode body) {
    List<String> keys = new ArrayList<>();
    body.get("keys").forEach(k -> keys.add(k.get("key").asText() + "=" + k.get("count").asLong()
        + "/" + k.get("maxError").asLong()));
    return keys;
  }

  @Test
  void limiterTop_ranksAllowedPermitsAndDeniedRequests() {
    for (int i = 0; i < 4; i++) {
      http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\"}");
    }
    http.post("/v1/limiters/demo/acquire", "{\"key\":\"bob\"}");
    Reply events = http.get("/v1/limiters/demo/top");
    assertThat(events.status()).isEqualTo(200);
    assertThat(events.json().get("limiter").asText()).isEqualTo("demo");
    assertThat(events.json().get("by").asText()).isEqualTo("events");
    assertThat(events.json().get("n").asInt()).isEqualTo(10);
    assertThat(keysOf(events.json())).containsExactly("alice=2/0", "bob=1/0");
    Reply denied = http.get("/v1/limiters/demo/top?by=denied&n=1");
    assertThat(denied.status()).isEqualTo(200);
    assertThat(denied.json().get("by").asText()).isEqualTo("denied");
    assertThat(keysOf(denied.json())).containsExactly("alice=2/0");
    clock.advance(10_000); // the whole 10 s window has passed
    assertThat(keysOf(http.get("/v1/limiters/demo/top").json())).isEmpty();
  }

  @Test
  void counterAndStatsTop_rankByEvents() {
    http.post("/v1/counters/requests/add", "{\"key\":\"a\",\"n\":5}");
    http.post("/v1/counters/requests/add", "{\"key\":\"b\",\"n\":7}");
    Reply counter = http.get("/v1/counters/requests/top?n=2&by=events");
    assertThat(counter.status()).isEqualTo(200);
    assertThat(counter.json().get("counter").asText()).isEqualTo("requests");
    assertThat(keysOf(counter.json())).containsExactly("b=7/0", "a=5/0");
    http.post("/v1/stats/latency/record", "{\"key\":\"m1\",\"values\":[1,2,3]}");
    http.post("/v1/stats/latency/record", "{\"key\":\"m2\",\"value\":4}");
    Reply stats = http.get("/v1/stats/latency/top?n=1");
    assertThat(stats.json().get("stats").asText()).isEqualTo("latency");
    assertThat(keysOf(stats.json())).containsExactly("m1=3/0");
  }

  @Test
  void badTopQueries_are400_unknownNames400_andNothingIsRecorded() {
    for (String q : List.of("n=0", "n=101", "n=ten", "by=nobody", "n=1&n=2", "x=1")) {
      Reply r = http.get("/v1/limiters/demo/top?" + q);
      assertThat(r.status()).as(q).isEqualTo(400);
      assertThat(r.error()).as(q).isEqualTo("invalid_argument");
    }
    assertThat(http.get("/v1/counters/requests/top?by=denied").field()).isEqualTo("by");
    assertThat(http.get("/v1/limiters/demo/top?n=0").field()).isEqualTo("n");
    Reply unknown = http.get("/v1/limiters/nope/top");
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.error()).isEqualTo("unknown_limiter");
    assertThat(keysOf(http.get("/v1/limiters/demo/top").json())).isEmpty();
  }

  @Test
  void topKeysOff_is501() throws Exception {
    server.close();
    server = WindowpaneServer.start(ServerConfig.parse(
        LocalApiTest.CONFIG.replace("  port: 0\n", "  port: 0\n  topKeys: 0\n"), "off.yaml"),
        Windowpane.localBuilder().clock(clock).build(), clock);
    http = new Http(server.url());
    Reply r = http.get("/v1/counters/requests/top");
    assertThat(r.status()).isEqualTo(501);
    assertThat(r.error()).isEqualTo("not_supported");
    assertThat(http.get("/v1/limiters/demo/peek?key=a").status()).isEqualTo(200);
  }

  @Test
  void serverTopKeys_defaultsTo100OnLocal_offOnRedis_andIsCheckedWhenRead() throws Exception {
    String redis = "engine:\n  type: redis\n  redis: {uri: redis://127.0.0.1:6379}\n";
    assertThat(ServerConfig.defaults().topKeys()).isEqualTo(100);
    assertThat(ServerConfig.parse(redis, "r.yaml").topKeys())
        .as("unset on Redis: off, each event would cost Redis a call more").isZero();
    assertThat(ServerConfig.parse("server:\n  topKeys: 50\n" + redis, "r.yaml").topKeys())
        .isEqualTo(50);
    assertThat(ServerConfig.defaults().withRedisUri("redis://127.0.0.1:6379").topKeys()).isZero();
    assertThat(ServerConfig.parse("server:\n  topKeys: 0\n", "t.yaml").topKeys()).isZero();
    assertThatThrownBy(() -> ServerConfig.parse("server:\n  topKeys: 10001\n", "t.yaml"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("server.topKeys");
  }

  @Test
  void peek_answersLikeAcquire_recordingNothing() {
    Reply first = http.get("/v1/limiters/api/peek?key=alice&permits=2");
    assertThat(first.status()).isEqualTo(200);
    JsonNode p = first.json();
    assertThat(p.get("peek").asBoolean()).isTrue();
    assertThat(p.get("allowed").asBoolean()).isTrue();
    assertThat(p.get("remaining").asLong()).isEqualTo(1);
    assertThat(p.get("key").asText()).isEqualTo("alice");
    assertThat(p.get("permits").asLong()).isEqualTo(2);
    assertThat(p.get("deniedBy").isNull()).isTrue();
    // nothing was recorded: the acquire answers what the peek said
    JsonNode a = http.post("/v1/limiters/api/acquire", "{\"key\":\"alice\",\"permits\":2}").json();
    assertThat(a.get("remaining").asLong()).isEqualTo(1);
    http.post("/v1/limiters/api/acquire", "{\"key\":\"alice\"}");
    // at the limit: the peek says denied, with the same limit and retry-after as the acquire
    Reply denied = http.get("/v1/limiters/api/peek?key=alice");
    assertThat(denied.status()).isEqualTo(200);
    Reply acquire = http.post("/v1/limiters/api/acquire", "{\"key\":\"alice\"}");
    assertThat(acquire.status()).isEqualTo(429);
    for (String field : List.of("allowed", "remaining", "retryAfterMillis", "deniedBy",
        "resetMillis", "engine", "degraded")) {
      assertThat(denied.json().get(field)).as(field).isEqualTo(acquire.json().get(field));
    }
    assertThat(denied.headers().firstValue("Retry-After")).isEmpty();
  }

  @Test
  void badPeeks_are400() {
    for (String q : List.of("", "key=", "key=a&permits=0", "key=a&permits=4", "key=a&permits=x",
        "key=a&n=1", "key=12345678901234567")) {
      Reply r = http.get("/v1/limiters/api/peek?" + q);
      assertThat(r.status()).as(q).isEqualTo(400);
      assertThat(r.error()).as(q).isEqualTo("invalid_argument");
    }
    assertThat(http.get("/v1/limiters/api/peek?key=a&permits=9").field()).isEqualTo("permits");
  }
}
