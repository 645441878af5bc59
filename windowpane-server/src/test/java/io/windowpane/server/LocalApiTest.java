package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP API on the in-process engine, driven over real HTTP on a free loopback port, with a
 * manual clock so that retry-after and reset times are exact.
 */
class LocalApiTest {

  static final String CONFIG = String.join("\n",
      "server:",
      "  port: 0",
      "  maxBodyBytes: 1024",
      "  maxKeyLength: 16",
      "  maxBatch: 4",
      "limiters:",
      "  demo:",
      "    - name: demo",
      "      permits: 2",
      "      window: 10s",
      "      panes: 10",
      "  api:",
      "    - name: per-second",
      "      permits: 3",
      "      window: 1s",
      "      panes: 10",
      "    - name: per-minute",
      "      permits: 5",
      "      window: 1m",
      "      panes: 60",
      "  logged:",
      "    - permits: 2",
      "      window: 10s",
      "      algorithm: log",
      "counters:",
      "  requests:",
      "    window: 1m",
      "    panes: 60",
      "stats:",
      "  latency:",
      "    window: 1m",
      "    panes: 60",
      "  small:",
      "    kind: exact",
      "    window: 1m",
      "    maxValues: 3",
      "");

  /** 250 ms past a second: 250 ms into a 1 s pane, 50 ms into a 100 ms pane. */
  static final long START = 1_700_000_000_250L;

  ManualClock clock;
  WindowpaneServer server;
  Http http;

  @BeforeEach
  void start() throws Exception {
    clock = ManualClock.at(START);
    server = WindowpaneServer.start(ServerConfig.parse(CONFIG, "test.yaml"),
        Windowpane.localBuilder().clock(clock).build(), clock);
    http = new Http(server.url());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  Reply acquire(String limiter, String body) {
    return http.post("/v1/limiters/" + limiter + "/acquire", body);
  }

  @Test
  void acquire_allowedThenDenied_withExactRetryAfterAndHeaders() {
    Reply first = acquire("demo", "{\"key\":\"alice\"}");
    assertThat(first.status()).isEqualTo(200);
    JsonNode d = first.json();
    assertThat(d.path("limiter").asText()).isEqualTo("demo");
    assertThat(d.path("key").asText()).isEqualTo("alice");
    assertThat(d.path("permits").asLong()).isEqualTo(1);
    assertThat(d.path("allowed").asBoolean()).isTrue();
    assertThat(d.path("remaining").asLong()).isEqualTo(1);
    assertThat(d.path("retryAfterMillis").asLong()).isZero();
    assertThat(d.path("resetMillis").asLong()).isEqualTo(9_750);
    assertThat(d.path("deniedBy").isNull()).isTrue();
    assertThat(d.path("engine").asText()).isEqualTo("local");
    assertThat(d.path("degraded").asBoolean()).isFalse();
    assertThat(first.header("RateLimit-Policy")).hasValue("\"demo\";q=2;w=10");
    assertThat(first.header("RateLimit")).hasValue("\"demo\";r=1;t=10");
    assertThat(first.header("Retry-After")).isEmpty();

    assertThat(acquire("demo", "{\"key\":\"alice\"}").json().path("remaining").asLong()).isZero();

    Reply denied = acquire("demo", "{\"key\":\"alice\"}");
    assertThat(denied.status()).isEqualTo(429);
    JsonNode n = denied.json();
    assertThat(n.path("allowed").asBoolean()).isFalse();
    assertThat(n.path("retryAfterMillis").asLong()).isEqualTo(9_750);
    assertThat(n.path("deniedBy").path("name").asText()).isEqualTo("demo");
    assertThat(n.path("deniedBy").path("permits").asLong()).isEqualTo(2);
    assertThat(n.path("deniedBy").path("windowMillis").asLong()).isEqualTo(10_000);
    assertThat(denied.header("Retry-After")).hasValue("10");
    assertThat(denied.header("RateLimit")).hasValue("\"demo\";r=0;t=10");

    clock.advance(9_749);
    assertThat(acquire("demo", "{\"key\":\"alice\"}").json().path("retryAfterMillis").asLong())
        .isEqualTo(1);
    clock.advance(1);
    assertThat(acquire("demo", "{\"key\":\"alice\"}").status()).isEqualTo(200);
    assertThat(acquire("demo", "{\"key\":\"bob\",\"permits\":2}").json().path("remaining")
        .asLong()).isZero();
  }

  @Test
  void acquire_severalLimits_namesTheDenyingLimitAndReportsTheQuotaWhenAllowed() {
    Reply ok = acquire("api", "{\"key\":\"k\",\"permits\":3}");
    assertThat(ok.status()).isEqualTo(200);
    assertThat(ok.header("RateLimit-Policy"))
        .hasValue("\"per-second\";q=3;w=1, \"per-minute\";q=5;w=60");
    // allowed: the remaining is the smallest over the limits; reset when every limit is full
    assertThat(ok.header("RateLimit")).hasValue("\"api\";r=0;t=60");
    assertThat(ok.json().path("resetMillis").asLong()).isEqualTo(59_750);

    Reply second = acquire("api", "{\"key\":\"k\"}");
    assertThat(second.status()).isEqualTo(429);
    assertThat(second.json().path("deniedBy").path("name").asText()).isEqualTo("per-second");
    // the per-second panes are 100 ms: the first pane leaves 1000 - 50 ms from now
    assertThat(second.json().path("retryAfterMillis").asLong()).isEqualTo(950);

    clock.advance(1_000);
    assertThat(acquire("api", "{\"key\":\"k\",\"permits\":2}").status()).isEqualTo(200);
    Reply third = acquire("api", "{\"key\":\"k\"}");
    assertThat(third.status()).isEqualTo(429);
    assertThat(third.json().path("deniedBy").path("name").asText()).isEqualTo("per-minute");
    assertThat(third.header("RateLimit").orElseThrow()).startsWith("\"per-minute\";r=0;t=");
  }

  @Test
  void acquire_logWindow_resetIsTheWholeWindow() {
    Reply ok = acquire("logged", "{\"key\":\"k\"}");
    assertThat(ok.json().path("resetMillis").asLong()).isEqualTo(10_000);
    assertThat(ok.header("RateLimit-Policy")).hasValue("\"2/10s\";q=2;w=10");
  }

  @Test
  void acquire_badInput_is400NamingTheFieldAndRecordsNothing() {
    assertInvalid(acquire("demo", "{}"), "key");
    assertInvalid(acquire("demo", "{\"key\":\"\"}"), "key");
    assertInvalid(acquire("demo", "{\"key\":\"seventeen-chars-x\"}"), "key");
    assertInvalid(acquire("demo", "{\"key\":7}"), "key");
    assertInvalid(acquire("demo", "{\"key\":\"a\",\"permits\":0}"), "permits");
    assertInvalid(acquire("demo", "{\"key\":\"a\",\"permits\":3}"), "permits");
    assertInvalid(acquire("demo", "{\"key\":\"a\",\"permits\":1.5}"), "permits");
    assertInvalid(acquire("demo", "{\"key\":\"a\",\"permits\":\"1\"}"), "permits");
    assertInvalid(acquire("demo", "{\"key\":\"a\",\"permit\":1}"), "permit");
    // none of the above took a permit
    assertThat(acquire("demo", "{\"key\":\"a\",\"permits\":2}").status()).isEqualTo(200);
  }

  @Test
  void malformedBodies_are400MalformedJson() {
    for (String body : new String[] {"", "{\"key\":", "[1]", "\"key\"", "{\"key\":\"a\"} x",
        "{\"key\":\"a\",\"key\":\"b\"}", "{\"key\":\"a\",\"permits\":NaN}"}) {
      Reply r = acquire("demo", body);
      assertThat(r.status()).as(body).isEqualTo(400);
      assertThat(r.error()).as(body).isEqualTo("malformed_json");
      assertThat(r.json().has("message")).isTrue();
      assertThat(r.json().path("field").isNull()).isTrue();
    }
  }

  @Test
  void bodyTooLarge_is400AndRecordsNothing() {
    String big = "{\"key\":\"a\",\"pad\":\"" + "x".repeat(2_000) + "\"}";
    Reply r = acquire("demo", big);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.error()).isEqualTo("body_too_large");
    assertThat(r.json().path("message").asText()).contains("1024");
    assertThat(acquire("demo", "{\"key\":\"a\",\"permits\":2}").status()).isEqualTo(200);
  }

  @Test
  void unknownNames_are400WithTheKindAsField() {
    Reply limiter = acquire("nope", "{\"key\":\"a\"}");
    assertThat(limiter.status()).isEqualTo(400);
    assertThat(limiter.error()).isEqualTo("unknown_limiter");
    assertThat(limiter.field()).isEqualTo("limiter");
    assertThat(limiter.json().path("message").asText()).contains("demo", "api");
    Reply counter = http.post("/v1/counters/nope/add", "{\"key\":\"a\"}");
    assertThat(counter.error()).isEqualTo("unknown_counter");
    assertThat(counter.field()).isEqualTo("counter");
    Reply stats = http.get("/v1/stats/nope/summary?key=a");
    assertThat(stats.error()).isEqualTo("unknown_stats");
    assertThat(http.get("/v1/limiters/nope").error()).isEqualTo("unknown_limiter");
  }

  @Test
  void unknownPathsAndMethods_are404And405InTheSameShape() {
    Reply missing = http.get("/v1/nothing-here");
    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.error()).isEqualTo("not_found");
    Reply method = http.method("DELETE", "/v1/limiters");
    assertThat(method.status()).isEqualTo(405);
    assertThat(method.error()).isEqualTo("method_not_allowed");
    assertThat(method.header("Allow")).hasValue("GET");
  }

  @Test
  void acquireBatch_decidesEachKeyInOrder() {
    Reply r = http.post("/v1/limiters/demo/acquire-batch",
        "{\"keys\":[\"a\",\"b\",\"a\",\"a\"],\"permits\":1}");
    assertThat(r.status()).isEqualTo(200);
    JsonNode decisions = r.json().path("decisions");
    assertThat(decisions).hasSize(4);
    assertThat(decisions.get(0).path("key").asText()).isEqualTo("a");
    assertThat(decisions.get(1).path("remaining").asLong()).isEqualTo(1);
    assertThat(decisions.get(2).path("allowed").asBoolean()).isTrue();
    assertThat(decisions.get(3).path("allowed").asBoolean()).isFalse();
    assertThat(decisions.get(3).path("retryAfterMillis").asLong()).isEqualTo(9_750);
    assertThat(r.header("RateLimit")).isEmpty();
  }

  @Test
  void batches_checkEveryEntryFirstAndRecordNothingWhenOneIsBad() {
    assertInvalid(http.post("/v1/limiters/demo/acquire-batch",
        "{\"keys\":[\"a\",\"b\",\"c\",\"d\",\"e\"]}"), "keys");
    assertInvalid(http.post("/v1/limiters/demo/acquire-batch", "{\"keys\":[]}"), "keys");
    assertInvalid(http.post("/v1/limiters/demo/acquire-batch", "{\"keys\":[\"a\",\"\"]}"),
        "keys[1]");
    assertInvalid(http.post("/v1/counters/requests/add-batch", "{\"keys\":[\"a\",3]}"),
        "keys[1]");
    assertInvalid(http.post("/v1/stats/latency/record-batch",
        "{\"records\":[{\"key\":\"a\",\"value\":1},{\"key\":\"a\",\"value\":\"x\"}]}"),
        "records[1].value");
    assertInvalid(http.post("/v1/stats/latency/record-batch",
        "{\"records\":[{\"key\":\"a\",\"value\":1},{\"key\":\"a\",\"values\":[1,1e400]}]}"),
        "records[1].values[1]");
    assertInvalid(http.post("/v1/stats/latency/record-batch",
        "{\"records\":[{\"key\":\"a\",\"value\":1,\"extra\":2}]}"), "records[0].extra");
    assertThat(http.get("/v1/counters/requests/count?key=a").json().path("count").asLong())
        .isZero();
    assertThat(http.get("/v1/stats/latency/summary?key=a").json().path("count").asLong())
        .isZero();
    assertThat(acquire("demo", "{\"key\":\"a\",\"permits\":2}").status()).isEqualTo(200);
  }

  @Test
  void counters_addCountAndBatches() {
    Reply add = http.post("/v1/counters/requests/add", "{\"key\":\"k\",\"n\":3}");
    assertThat(add.status()).isEqualTo(200);
    assertThat(add.json().path("counter").asText()).isEqualTo("requests");
    assertThat(add.json().path("count").asLong()).isEqualTo(3);
    assertThat(http.post("/v1/counters/requests/add", "{\"key\":\"k\"}").json().path("count")
        .asLong()).isEqualTo(4);
    Reply count = http.get("/v1/counters/requests/count?key=k");
    assertThat(count.json().path("key").asText()).isEqualTo("k");
    assertThat(count.json().path("count").asLong()).isEqualTo(4);

    Reply batch = http.post("/v1/counters/requests/add-batch", "{\"keys\":[\"k\",\"j\"],\"n\":2}");
    assertThat(batch.json().path("counts").get(0).path("count").asLong()).isEqualTo(6);
    assertThat(batch.json().path("counts").get(1).path("key").asText()).isEqualTo("j");
    assertThat(batch.json().path("counts").get(1).path("count").asLong()).isEqualTo(2);
    Reply counts = http.post("/v1/counters/requests/count-batch", "{\"keys\":[\"j\",\"none\"]}");
    assertThat(counts.json().path("counts").get(0).path("count").asLong()).isEqualTo(2);
    assertThat(counts.json().path("counts").get(1).path("count").asLong()).isZero();

    clock.advance(60_000);
    assertThat(http.get("/v1/counters/requests/count?key=k").json().path("count").asLong())
        .isZero();

    assertInvalid(http.post("/v1/counters/requests/add", "{\"key\":\"k\",\"n\":0}"), "n");
    assertInvalid(http.post("/v1/counters/requests/add", "{\"key\":\"k\",\"n\":2147483648}"), "n");
    assertInvalid(http.get("/v1/counters/requests/count"), "key");
    assertInvalid(http.get("/v1/counters/requests/count?key=k&other=1"), "other");
    assertInvalid(http.get("/v1/counters/requests/count?key=" + "x".repeat(17)), "key");
  }

  @Test
  void eventTime_atLandsInItsOwnPane_lateOrAheadIs400AndRecordsNothing() {
    // requests: 1 min in 60 panes of 1 s; START is 250 ms into its pane
    long paneStart = START - 250;
    long oldest = paneStart - 59_000; // the oldest pane still in the window
    Reply add = http.post("/v1/counters/requests/add",
        "{\"key\":\"e\",\"n\":2,\"at\":" + oldest + "}");
    assertThat(add.status()).as(add.text()).isEqualTo(200);
    assertThat(add.json().path("count").asLong()).isEqualTo(2);
    Reply late = http.post("/v1/counters/requests/add",
        "{\"key\":\"e\",\"at\":" + (oldest - 1) + "}");
    assertInvalid(late, "at");
    assertThat(late.json().path("message").asText()).contains(Long.toString(oldest));
    assertInvalid(http.post("/v1/counters/requests/add",
        "{\"key\":\"e\",\"at\":" + (START + 1_001) + "}"), "at");
    assertInvalid(http.post("/v1/counters/requests/add", "{\"key\":\"e\",\"at\":\"x\"}"), "at");
    Reply batch = http.post("/v1/counters/requests/add-batch",
        "{\"keys\":[\"e\",\"f\"],\"at\":" + (START - 30_000) + "}");
    assertThat(batch.json().path("counts").get(0).path("count").asLong()).isEqualTo(3);
    // the event at the oldest pane leaves with it, 750 ms later; the others stay
    clock.advance(750);
    assertThat(http.get("/v1/counters/requests/count?key=e").json().path("count").asLong())
        .isEqualTo(1);

    Reply record = http.post("/v1/stats/latency/record",
        "{\"key\":\"e\",\"values\":[5,7],\"at\":" + (START - 10_000) + "}");
    assertThat(record.status()).as(record.text()).isEqualTo(200);
    assertInvalid(http.post("/v1/stats/latency/record",
        "{\"key\":\"e\",\"value\":9,\"at\":" + (START - 120_000) + "}"), "at");
    Reply records = http.post("/v1/stats/latency/record-batch",
        "{\"records\":[{\"key\":\"e\",\"value\":6}],\"at\":" + (START - 5_000) + "}");
    assertThat(records.status()).as(records.text()).isEqualTo(200);
    assertInvalid(http.post("/v1/stats/latency/record-batch",
        "{\"records\":[{\"key\":\"e\",\"value\":6}],\"at\":1}"), "at");
    assertInvalid(http.post("/v1/stats/latency/record-batch",
        "{\"records\":[{\"key\":\"e\",\"value\":6,\"at\":1}]}"), "records[0].at");
    assertThat(http.get("/v1/stats/latency/summary?key=e&quantiles=1").json().path("count")
        .asLong()).isEqualTo(3);
  }

  @Test
  void stats_recordAndSummary() {
    assertThat(http.post("/v1/stats/latency/record", "{\"key\":\"k\",\"value\":10}").json()
        .path("recorded").asLong()).isEqualTo(1);
    Reply many = http.post("/v1/stats/latency/record", "{\"key\":\"k\",\"values\":[20,30,40]}");
    assertThat(many.json().path("recorded").asLong()).isEqualTo(3);

    Reply summary = http.get("/v1/stats/latency/summary?key=k&quantiles=0,0.5,1");
    JsonNode s = summary.json();
    assertThat(s.path("stats").asText()).isEqualTo("latency");
    assertThat(s.path("count").asLong()).isEqualTo(4);
    assertThat(s.path("sum").asDouble()).isEqualTo(100.0);
    assertThat(s.path("mean").asDouble()).isEqualTo(25.0);
    assertThat(s.path("min").asDouble()).isEqualTo(10.0);
    assertThat(s.path("max").asDouble()).isEqualTo(40.0);
    assertThat(s.path("quantiles").path("0").asDouble()).isEqualTo(10.0);
    assertThat(s.path("quantiles").path("1").asDouble()).isEqualTo(40.0);
    // rank round(0.5 * 3) = 2: the third value, 30, within 1%
    assertThat(s.path("quantiles").path("0.5").asDouble()).isBetween(29.7, 30.3);
    assertThat(s.path("exact").asBoolean()).isFalse();
    assertThat(s.path("relativeAccuracy").asDouble()).isEqualTo(0.01);

    Reply defaults = http.get("/v1/stats/latency/summary?key=k");
    assertThat(defaults.json().path("quantiles").fieldNames()).toIterable()
        .containsExactly("0.5", "0.9", "0.99");

    Reply empty = http.get("/v1/stats/latency/summary?key=nobody");
    assertThat(empty.json().path("count").asLong()).isZero();
    assertThat(empty.json().path("sum").asDouble()).isZero();
    assertThat(empty.json().path("mean").isNull()).isTrue();
    assertThat(empty.json().path("min").isNull()).isTrue();
    assertThat(empty.json().path("quantiles").path("0.99").isNull()).isTrue();

    Reply batch = http.post("/v1/stats/latency/record-batch",
        "{\"records\":[{\"key\":\"a\",\"value\":1},{\"key\":\"b\",\"values\":[2,3]}]}");
    assertThat(batch.json().path("recorded").asLong()).isEqualTo(3);
    Reply summaries = http.post("/v1/stats/latency/summary-batch",
        "{\"keys\":[\"a\",\"b\"],\"quantiles\":[1]}");
    assertThat(summaries.json().path("summaries").get(0).path("count").asLong()).isEqualTo(1);
    assertThat(summaries.json().path("summaries").get(1).path("sum").asDouble()).isEqualTo(5.0);
    assertThat(summaries.json().path("summaries").get(1).path("quantiles").path("1").asDouble())
        .isEqualTo(3.0);

    assertInvalid(http.post("/v1/stats/latency/record", "{\"key\":\"k\"}"), "value");
    assertInvalid(http.post("/v1/stats/latency/record",
        "{\"key\":\"k\",\"value\":1,\"values\":[1]}"), "value");
    assertInvalid(http.post("/v1/stats/latency/record", "{\"key\":\"k\",\"value\":1e400}"),
        "value");
    assertInvalid(http.get("/v1/stats/latency/summary?key=k&quantiles=1.5"), "quantiles");
    assertInvalid(http.get("/v1/stats/latency/summary?key=k&quantiles=x"), "quantiles");
    assertThat(http.get("/v1/stats/latency/summary?key=k").json().path("count").asLong())
        .isEqualTo(4);
  }

  @Test
  void stats_exactWindowFull_is409AndRecordsNothing() {
    assertThat(http.post("/v1/stats/small/record", "{\"key\":\"k\",\"values\":[1,2]}").status())
        .isEqualTo(200);
    Reply full = http.post("/v1/stats/small/record", "{\"key\":\"k\",\"values\":[3,4]}");
    assertThat(full.status()).isEqualTo(409);
    assertThat(full.error()).isEqualTo("capacity_exceeded");
    JsonNode s = http.get("/v1/stats/small/summary?key=k&quantiles=0.5").json();
    assertThat(s.path("count").asLong()).isEqualTo(2);
    assertThat(s.path("exact").asBoolean()).isTrue();
    assertThat(s.path("relativeAccuracy").asDouble()).isZero();
  }

  @Test
  void recordBatch_someRecordsRefused_is409NamingThem_andTheOthersAreRecorded() {
    Reply r = http.post("/v1/stats/small/record-batch", "{\"records\":["
        + "{\"key\":\"k\",\"values\":[1,2]},{\"key\":\"j\",\"value\":1},"
        + "{\"key\":\"k\",\"values\":[3,4]}]}");
    assertThat(r.status()).isEqualTo(409);
    assertThat(r.error()).isEqualTo("capacity_exceeded");
    assertThat(r.field()).isEqualTo("records[2]");
    assertThat(r.json().path("message").asText()).contains("records 2 refused", "other 2 records");
    assertThat(http.get("/v1/stats/small/summary?key=k").json().path("count").asLong())
        .isEqualTo(2);
    assertThat(http.get("/v1/stats/small/summary?key=j").json().path("count").asLong())
        .isEqualTo(1);
  }

  @Test
  void queryParameters_onlyWhereAnOperationNamesThem_andEachOnce() {
    assertInvalid(http.post("/v1/limiters/demo/acquire?key=a", "{\"key\":\"a\"}"), "key");
    assertInvalid(http.post("/v1/counters/requests/add?x=1", "{\"key\":\"a\"}"), "x");
    assertInvalid(http.get("/v1/limiters?verbose=1"), "verbose");
    assertInvalid(http.get("/v1/stats/latency?x=1"), "x");
    assertInvalid(http.get("/v1/counters/requests/count?key=a&key=b"), "key");
    assertInvalid(http.get("/v1/stats/latency/summary?key=a&quantiles=0.5&quantiles=0.9"),
        "quantiles");
    assertThat(http.get("/v1/counters/requests/count?key=a").json().path("count").asLong())
        .isZero();
    assertThat(acquire("demo", "{\"key\":\"a\",\"permits\":2}").status()).isEqualTo(200);
  }

  @Test
  void listings_describeWhatIsConfigured() {
    JsonNode limiters = http.get("/v1/limiters").json().path("limiters");
    assertThat(limiters).hasSize(3);
    assertThat(limiters.get(0).path("name").asText()).isEqualTo("demo");
    JsonNode api = http.get("/v1/limiters/api").json();
    assertThat(api.path("limits").get(1).path("name").asText()).isEqualTo("per-minute");
    assertThat(api.path("limits").get(1).path("permits").asLong()).isEqualTo(5);
    assertThat(api.path("limits").get(1).path("window").asText()).isEqualTo("1m");
    assertThat(api.path("limits").get(1).path("windowMillis").asLong()).isEqualTo(60_000);
    assertThat(api.path("limits").get(1).path("algorithm").asText()).isEqualTo("panes");
    assertThat(api.path("limits").get(1).path("panes").asInt()).isEqualTo(60);
    assertThat(http.get("/v1/limiters/logged").json().path("limits").get(0).has("panes"))
        .isFalse();

    JsonNode counter = http.get("/v1/counters").json().path("counters").get(0);
    assertThat(counter.path("name").asText()).isEqualTo("requests");
    assertThat(http.get("/v1/counters/requests").json().path("window").asText()).isEqualTo("1m");

    JsonNode stats = http.get("/v1/stats").json().path("stats");
    assertThat(stats.get(0).path("kind").asText()).isEqualTo("histogram");
    assertThat(stats.get(0).path("relativeAccuracy").asDouble()).isEqualTo(0.01);
    JsonNode small = http.get("/v1/stats/small").json();
    assertThat(small.path("kind").asText()).isEqualTo("exact");
    assertThat(small.path("maxValues").asInt()).isEqualTo(3);
  }

  @Test
  void healthAndMetrics() {
    Reply health = http.get("/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().path("status").asText()).isEqualTo("up");
    assertThat(health.json().path("backend").path("status").asText()).isEqualTo("up");
    assertThat(http.get("/health/live").json().path("status").asText()).isEqualTo("up");

    acquire("demo", "{\"key\":\"m\",\"permits\":2}");
    acquire("demo", "{\"key\":\"m\"}");
    acquire("nope", "{\"key\":\"m\"}");
    Reply metrics = http.get("/metrics");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.text())
        .contains("windowpane_decisions_total{degraded=\"false\",limiter=\"demo\","
            + "outcome=\"allowed\"} 1.0")
        .contains("windowpane_decisions_total{degraded=\"false\",limiter=\"demo\","
            + "outcome=\"denied\"} 1.0")
        .contains("windowpane_errors_total{error=\"unknown_limiter\"} 1.0")
        .contains("windowpane_backend_seconds_count{operation=\"acquire\",outcome=\"ok\"} 2")
        .contains("jvm_memory_used_bytes");
  }

  static void assertInvalid(Reply reply, String field) {
    assertThat(reply.status()).as(reply.text()).isEqualTo(400);
    assertThat(reply.error()).as(reply.text()).isEqualTo("invalid_argument");
    assertThat(reply.field()).as(reply.text()).isEqualTo(field);
    assertThat(reply.json().path("message").asText()).isNotBlank();
  }
}
