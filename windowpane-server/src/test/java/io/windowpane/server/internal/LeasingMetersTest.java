package io.windowpane.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.Javalin;
import io.windowpane.LeaseStats;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.server.config.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A limiter with {@code leasing:} in the YAML leases on the in-process engine, and
 * {@code /metrics} reports exactly its {@code leaseStats()} after decisions made through the
 * HTTP API; a limiter without the block has no leasing meters. The engine's manual clock stays
 * at the start of a 6-minute pane, so the slices outlive the test.
 */
class LeasingMetersTest {

  static final String CONFIG = """
      server:
        port: 0
      limiters:
        hot:
          limits:
            - permits: 1000
              window: 1h
          leasing:
            enabled: true
            maxShare: 0.5
            maxSlice: 50
            logLifetime: 5ms
        plain:
          - permits: 10
            window: 1s
      """;

  private final ManualClock clock = ManualClock.at(1_700_000_280_000L); // a 6-minute pane starts
  private Windowpane wp;
  private ServiceMetrics metrics;
  private Service service;
  private Javalin app;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws Exception {
    ServerConfig config = ServerConfig.parse(CONFIG, "leasing.yaml");
    wp = Windowpane.localBuilder().clock(clock).build();
    metrics = new ServiceMetrics();
    service = new Service(config, wp, null, clock, metrics);
    app = service.create(config.shutdownTimeout().toMillis(), new ArrayList<>())
        .start("127.0.0.1", 0);
  }

  @AfterEach
  void stop() {
    app.stop();
    metrics.close();
    wp.close();
  }

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + app.port() + path));
    request = body == null ? request.GET()
        : request.method(method, HttpRequest.BodyPublishers.ofString(body));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The value of the one sample of {@code name} whose labels are exactly {@code labels}. */
  static double sample(String scrape, String name, String labels) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name + "{" + labels + "}") + " (\\S+)$")
        .matcher(scrape);
    assertThat(m.find()).as("%s{%s} in\n%s", name, labels, scrape).isTrue();
    return Double.parseDouble(m.group(1));
  }

  @Test
  void limiterDescription_showsTheLeasingOptions_onlyWhenLeasingIsOn() throws Exception {
    assertThat(send("GET", "/v1/limiters/hot", null).body()).contains(
        "\"leasing\":{\"maxShare\":0.5,\"maxSlice\":50,\"logLifetime\":\"5ms\"}");
    assertThat(send("GET", "/v1/limiters/plain", null).body()).doesNotContain("leasing");
  }

  @Test
  void leasingLimiter_metersEqualItsLeaseStats_afterDecisionsOverHttp() throws Exception {
    assertThat(service.catalog().limiter("hot").quota().leasing()).isPresent();
    assertThat(service.catalog().limiter("plain").quota().leasing()).isEmpty();
    int allowed = 0;
    for (int i = 0; i < 30; i++) {
      HttpResponse<String> r = send("POST", "/v1/limiters/hot/acquire", "{\"key\":\"tenant:7\"}");
      allowed += r.statusCode() == 200 ? 1 : 0;
    }
    send("POST", "/v1/limiters/plain/acquire", "{\"key\":\"tenant:7\"}");
    assertThat(allowed).isEqualTo(30);

    String scrape = send("GET", "/metrics", null).body();
    LeaseStats s = service.catalog().limiter("hot").limiter().leaseStats().orElseThrow();
    assertThat(s.active()).isTrue();
    assertThat(s.leases()).isPositive();
    assertThat(s.localDecisions()).isPositive(); // later requests were answered from a slice
    assertThat(s.localDecisions() + s.engineDecisions()).isEqualTo(30);

    String hot = "limiter=\"hot\"";
    assertThat(sample(scrape, "windowpane_leasing_leases_total", hot)).isEqualTo(s.leases());
    assertThat(sample(scrape, "windowpane_leasing_permits_total", "kind=\"leased\"," + hot))
        .isEqualTo(s.leasedPermits());
    assertThat(sample(scrape, "windowpane_leasing_permits_total", "kind=\"returned\"," + hot))
        .isEqualTo(s.returnedPermits());
    assertThat(sample(scrape, "windowpane_leasing_returns_total", hot)).isEqualTo(s.returns());
    assertThat(sample(scrape, "windowpane_leasing_returns_failed_total", hot))
        .isEqualTo(s.failedReturns());
    assertThat(sample(scrape, "windowpane_leasing_decisions_total", hot + ",where=\"local\""))
        .isEqualTo(s.localDecisions());
    assertThat(sample(scrape, "windowpane_leasing_decisions_total", hot + ",where=\"engine\""))
        .isEqualTo(s.engineDecisions());
    assertThat(sample(scrape, "windowpane_leasing_local_hit_ratio", hot))
        .isEqualTo(s.localHitRatio());
    assertThat(sample(scrape, "windowpane_leasing_active", hot)).isEqualTo(1.0);
    assertThat(scrape).doesNotContain("limiter=\"plain\",where=")
        .doesNotContain("windowpane_leasing_leases_total{limiter=\"plain\"}");
  }
}
