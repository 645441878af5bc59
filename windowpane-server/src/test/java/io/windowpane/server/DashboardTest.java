package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dashboard over plain HTTP: the page and its assets (the uPlot WebJar from the classpath),
 * and the feed's JSON, whose totals are the service's own meters. The browser test is
 * {@code DashboardBrowserIT}.
 */
class DashboardTest {

  static final String CONFIG = String.join("\n",
      "server:",
      "  port: 0",
      "limiters:",
      "  demo:",
      "    - permits: 3",
      "      window: 1m",
      "      panes: 60",
      "  trial:",
      "    - permits: 1",
      "      window: 1m",
      "counters:",
      "  hits:",
      "    window: 1m",
      "");

  ManualClock clock;
  WindowpaneServer server;
  Http http;

  @BeforeEach
  void start() throws Exception {
    clock = ManualClock.at(1_700_000_000_250L);
    server = WindowpaneServer.start(ServerConfig.parse(CONFIG, "dashboard.yaml"),
        Windowpane.localBuilder().clock(clock).build(), clock);
    http = new Http(server.url());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void page_isHtmlLoadingItsOwnAssetsOnly() {
    Reply page = http.get("/dashboard");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.header("Content-Type").orElseThrow()).startsWith("text/html");
    assertThat(page.header("Content-Security-Policy").orElseThrow())
        .contains("default-src 'none'", "script-src 'self'", "connect-src 'self'");
    List<String> refs = new ArrayList<>();
    var m = java.util.regex.Pattern.compile("(?:src|href)=\"([^\"]+)\"").matcher(page.text());
    while (m.find()) {
      if (!m.group(1).equals("data:,")) { // the empty icon, so that no /favicon.ico is asked
        refs.add(m.group(1));
      }
    }
    assertThat(refs).contains("dashboard/uPlot.iife.min.js", "dashboard/uPlot.min.css",
        "dashboard/dashboard.js", "dashboard/dashboard.css", "dashboard/uPlot.LICENSE.txt");
    for (String ref : refs) {
      assertThat(ref).as("no CDN: every asset is served by the service").doesNotContain("//");
      assertThat(http.get("/" + ref).status()).as(ref).isEqualTo(200);
    }
  }

  @Test
  void assets_comeFromTheJarWithTheirTypes() {
    Reply uplot = http.get("/dashboard/uPlot.iife.min.js");
    assertThat(uplot.header("Content-Type").orElseThrow()).startsWith("text/javascript");
    assertThat(uplot.text()).contains("uPlot").hasSizeGreaterThan(10_000);
    assertThat(http.get("/dashboard/uPlot.min.css").header("Content-Type").orElseThrow())
        .startsWith("text/css");
    assertThat(http.get("/dashboard/uPlot.LICENSE.txt").text()).contains("MIT");
    assertThat(http.get("/dashboard/dashboard.js").text()).contains("v1/dashboard/feed");
  }

  @Test
  void unknownAsset_is404Json_andNoPathEscapesTheAssetList() {
    Reply missing = http.get("/dashboard/pom.xml");
    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.error()).isEqualTo("not_found");
    assertThat(http.get("/dashboard/..%2Fopenapi.yaml").status()).isEqualTo(404);
    assertThat(http.get("/dashboard/index.html").status()).isEqualTo(404);
  }

  @Test
  void feed_beforeAnyTraffic_listsEveryLimiterWithZeros() {
    JsonNode feed = http.get("/v1/dashboard/feed").json();
    assertThat(feed.path("engine").asText()).isEqualTo("local");
    assertThat(feed.path("limiters")).hasSize(2);
    JsonNode demo = feed.path("limiters").get(0);
    assertThat(demo.path("name").asText()).isEqualTo("demo");
    assertThat(demo.path("allowed").asLong()).isZero();
    assertThat(demo.path("denied").asLong()).isZero();
    assertThat(feed.path("backend")).isEmpty();
    assertThat(feed.path("errors").size()).isZero();
  }

  @Test
  void feed_totalsAreTheDecisionsEngineCallsAndErrorsTheServiceMade() {
    for (int i = 0; i < 5; i++) {
      http.post("/v1/limiters/demo/acquire", "{\"key\":\"alice\"}");
    }
    http.post("/v1/limiters/trial/acquire", "{\"key\":\"bob\"}");
    http.post("/v1/limiters/demo/acquire-batch", "{\"keys\":[\"carol\",\"alice\"]}");
    http.post("/v1/counters/hits/add", "{\"key\":\"x\",\"n\":4}");
    http.get("/v1/counters/hits/count?key=x");
    assertThat(http.post("/v1/limiters/demo/acquire", "{\"key\":\"\"}").status()).isEqualTo(400);

    Reply reply = http.get("/v1/dashboard/feed");
    assertThat(reply.status()).isEqualTo(200);
    JsonNode feed = reply.json();
    JsonNode demo = feed.path("limiters").get(0);
    assertThat(demo.path("allowed").asLong()).isEqualTo(4); // alice 3 of 5, carol 1
    assertThat(demo.path("denied").asLong()).isEqualTo(3); // alice twice, then in the batch
    assertThat(demo.path("wouldDeny").asLong()).isZero();
    assertThat(demo.path("degraded").asLong()).isZero();
    JsonNode trial = feed.path("limiters").get(1);
    assertThat(trial.path("allowed").asLong()).isEqualTo(1);
    assertThat(trial.path("denied").asLong()).isZero();

    JsonNode acquire = operation(feed, "acquire");
    assertThat(acquire.path("calls").asLong()).isEqualTo(7); // 6 single + 1 batch call
    assertThat(acquire.path("errors").asLong()).isZero();
    assertThat(acquire.path("totalMillis").asDouble()).isPositive();
    assertThat(acquire.path("maxMillis").asDouble()).isPositive()
        .isLessThanOrEqualTo(acquire.path("totalMillis").asDouble());
    assertThat(operation(feed, "add").path("calls").asLong()).isEqualTo(1);
    assertThat(operation(feed, "count").path("calls").asLong()).isEqualTo(1);
    assertThat(feed.path("errors").path("invalid_argument").asLong()).isEqualTo(1);

    // the feed agrees with /metrics, which reads the same meters
    String metrics = http.get("/metrics").text();
    assertThat(metrics).contains("windowpane_decisions_total{degraded=\"false\",limiter=\"demo\","
        + "outcome=\"allowed\"} 4.0");
  }

  @Test
  void feed_takesOnlyTheHistoryParameter_trueOrFalse() {
    Reply r = http.get("/v1/dashboard/feed?limiter=demo");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.field()).isEqualTo("limiter");
    Reply bad = http.get("/v1/dashboard/feed?history=yes");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.field()).isEqualTo("history");
    assertThat(bad.json().path("message").asText()).contains("true or false");
    assertThat(http.get("/v1/dashboard/feed?history=true&history=true").status()).isEqualTo(400);
    assertThat(http.get("/v1/dashboard/feed?history=false").json().has("history")).isFalse();
    assertThat(http.get("/v1/dashboard/feed").json().has("history")).isFalse();
  }

  @Test
  void feedWithHistory_addsTheLastFiveMinutesPerSecond_onTheServiceClock() {
    long before = System.currentTimeMillis();
    JsonNode history = http.get("/v1/dashboard/feed?history=true").json().path("history");
    long after = System.currentTimeMillis();
    // the history samples wall-clock seconds, whatever the engine's (manual) clock says
    assertThat(history.path("nowMillis").asLong()).isBetween(before, after);
    int seconds = history.path("seconds").asInt();
    assertThat(seconds).isBetween(0, 300);
    assertThat(history.path("toSecond").asLong()).isLessThan(after / 1000);
    assertThat(history.path("limiters").isArray()).isTrue();
    assertThat(history.path("backend").isArray()).isTrue();
  }

  @Test
  void withTokens_pageIsOpen_butTheFeedAndTheApiItCallsNeedOne() throws Exception {
    String token = "dashboard-token-0123456789";
    try (WindowpaneServer secured = WindowpaneServer.start(ServerConfig.parse(String.join("\n",
        "server:", "  port: 0", "auth:", "  tokens: [" + token + "]", "limiters:", "  demo:",
        "    - permits: 2", "      window: 10s", ""), "auth.yaml"))) {
      Http anonymous = new Http(secured.url());
      assertThat(anonymous.get("/dashboard").status()).isEqualTo(200);
      assertThat(anonymous.get("/dashboard/dashboard.js").status()).isEqualTo(200);
      assertThat(anonymous.get("/v1/dashboard/feed").status()).isEqualTo(401);
      assertThat(anonymous.get("/v1/dashboard/feed?history=true").status()).isEqualTo(401);
      assertThat(anonymous.get("/v1/limiters").status()).isEqualTo(401);
      assertThat(anonymous.get("/dashboardx").status()).isEqualTo(401);
      Reply feed = anonymous.withToken(token).get("/v1/dashboard/feed");
      assertThat(feed.status()).isEqualTo(200);
      assertThat(feed.json().path("limiters").get(0).path("name").asText()).isEqualTo("demo");
      assertThat(anonymous.withToken(token).get("/v1/dashboard/feed?history=true").json()
          .path("history").has("seconds")).isTrue();
    }
  }

  private static JsonNode operation(JsonNode feed, String name) {
    for (JsonNode op : feed.path("backend")) {
      if (op.path("operation").asText().equals(name)) {
        return op;
      }
    }
    throw new AssertionError("no operation " + name + " in " + feed);
  }
}
