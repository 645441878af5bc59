package io.windowpane.server.rlqs;

import static io.windowpane.server.rlqs.RlqsEnvoy.reports;
import static io.windowpane.server.rlqs.RlqsEnvoy.usage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse.BucketAction;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports.BucketQuotaUsage;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy.BlanketRule;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.windowpane.ManualClock;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.server.WindowpaneServer;
import io.windowpane.server.config.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The rate limit quota service on the local engine, over real gRPC on loopback, with the
 * service's manual clock: Envoys played by {@link RlqsEnvoy} streams.
 */
class EnvoyRlqsTest {

  /** On a pane edge of no window here plus 250 ms. */
  static final long START = 1_700_000_000_250L;
  static final Map<String, String> CHECKOUT = Map.of("name", "checkout");
  static final String CHECKOUT_KEY = "edge&name=checkout";
  static final WindowSpec CHECKOUT_WINDOW = WindowSpec.panes(Duration.ofSeconds(10), 10);

  static final String BUCKETS = String.join("\n",
      "domain: edge",
      "assignmentTtl: 2s",
      "abandonAfter: 5s",
      "buckets:",
      "  - name: checkout",
      "    match: {name: checkout}",
      "    limit: {permits: 1000, window: 10s, panes: 10}",
      "  - name: tenants",
      "    match: {name: api, tenant: \"*\"}",
      "    limit: {permits: 100, window: 1m}",
      "  - name: small",
      "    match: {name: small}",
      "    limit: {permits: 100, window: 10s, panes: 10}",
      "  - name: large",
      "    match: {name: large}",
      "    limit: {permits: 10000, window: 10s, panes: 10}",
      "  - name: tokens",
      "    match: {name: tb}",
      "    limit: {permits: 500, window: 10s}",
      "    strategy: tokenBucket",
      "");

  @TempDir
  Path dir;
  ManualClock clock;
  Windowpane wp;
  WindowpaneServer server;
  final List<RlqsEnvoy> envoys = new ArrayList<>();

  static String config(Path buckets, String extra) {
    return String.join("\n", "server:", "  port: 0", "rlqs:", "  grpcPort: 0",
        "  config: " + buckets.toAbsolutePath(), extra);
  }

  @BeforeEach
  void start() throws Exception {
    Path buckets = Files.writeString(dir.resolve("buckets.yaml"), BUCKETS);
    clock = ManualClock.at(START);
    wp = Windowpane.localBuilder().clock(clock).build();
    server = WindowpaneServer.start(ServerConfig.parse(config(buckets, ""), "test.yaml"), wp,
        clock);
  }

  @AfterEach
  void stop() throws Exception {
    for (RlqsEnvoy e : envoys) {
      e.close();
    }
    server.close();
  }

  RlqsEnvoy envoy() {
    RlqsEnvoy e = new RlqsEnvoy(server.rlqsPort().getAsInt());
    envoys.add(e);
    return e;
  }

  long checkoutCount() {
    return wp.counter("rlqs:checkout", CHECKOUT_WINDOW).count(CHECKOUT_KEY);
  }

  static BucketAction one(RlqsEnvoy envoy, Map<String, String> bucket, long allowed,
      long denied) throws InterruptedException {
    return envoy.send(reports("edge", usage(bucket, allowed, denied, 1000))).getBucketAction(0);
  }

  static RateLimitStrategy.RequestsPerTimeUnit perUnit(BucketAction a) {
    assertThat(a.hasQuotaAssignmentAction()).as("%s", a).isTrue();
    return a.getQuotaAssignmentAction().getRateLimitStrategy().getRequestsPerTimeUnit();
  }

  @Test
  void report_isRecordedInTheBucketWindow_andAnsweredWithAnAssignmentSizedByTheRoomLeft()
      throws Exception {
    RlqsEnvoy envoy = envoy();
    BucketAction first = one(envoy, CHECKOUT, 0, 50);
    assertThat(first.getBucketId().getBucketMap()).isEqualTo(CHECKOUT);
    assertThat(first.getQuotaAssignmentAction().getAssignmentTimeToLive().getSeconds())
        .isEqualTo(2);
    // Room 1000, the only Envoy: allowance 1000, q * (1 s + 2 s) / 1 s <= 1000: 333 per second.
    assertThat(perUnit(first).getRequestsPerTimeUnit()).isEqualTo(333);
    assertThat(perUnit(first).getTimeUnit()).isEqualTo(RateLimitUnit.SECOND);

    clock.advance(1000);
    BucketAction second = one(envoy, CHECKOUT, 300, 0);
    assertThat(checkoutCount()).isEqualTo(300);
    // Room 700: 233 per second (3 * 233 = 699 <= 700).
    assertThat(perUnit(second).getRequestsPerTimeUnit()).isEqualTo(233);

    // Near the limit, small: 995 used, room 5 -> 1 per second (3 <= 5).
    clock.advance(1000);
    assertThat(perUnit(one(envoy, CHECKOUT, 695, 0)).getRequestsPerTimeUnit()).isEqualTo(1);
    assertThat(checkoutCount()).isEqualTo(995);
  }

  @Test
  void atOrOverTheLimit_isABlanketDeny_untilTheWindowHasRoomAgain() throws Exception {
    RlqsEnvoy envoy = envoy();
    one(envoy, CHECKOUT, 0, 10);
    BucketAction over = one(envoy, CHECKOUT, 1000, 7);
    assertThat(over.getQuotaAssignmentAction().getRateLimitStrategy().getBlanketRule())
        .isEqualTo(BlanketRule.DENY_ALL);
    clock.advance(5_000);
    assertThat(one(envoy, CHECKOUT, 0, 40).getQuotaAssignmentAction().getRateLimitStrategy()
        .getBlanketRule()).isEqualTo(BlanketRule.DENY_ALL);
    clock.advance(5_000); // the 1000 left the 10 s window
    assertThat(perUnit(one(envoy, CHECKOUT, 0, 40)).getRequestsPerTimeUnit()).isEqualTo(333);
  }

  @Test
  void wildcardBucket_countsEachValueInItsOwnWindow() throws Exception {
    RlqsEnvoy envoy = envoy();
    Map<String, String> a = Map.of("name", "api", "tenant", "a");
    Map<String, String> b = Map.of("name", "api", "tenant", "b");
    var answer = envoy.send(reports("edge", usage(a, 100, 0, 1000), usage(b, 10, 0, 1000)));
    assertThat(answer.getBucketActionList()).extracting(x -> x.getBucketId().getBucketMap())
        .containsExactly(a, b);
    assertThat(answer.getBucketAction(0).getQuotaAssignmentAction().getRateLimitStrategy()
        .getBlanketRule()).isEqualTo(BlanketRule.DENY_ALL);
    // 90 left of 100 per minute; over 2 s, 30 per second admits 30 + 30 * 2 = 90.
    assertThat(perUnit(answer.getBucketAction(1)).getRequestsPerTimeUnit()).isEqualTo(30);
    WindowSpec minute = WindowSpec.panes(Duration.ofMinutes(1), 10);
    assertThat(wp.counter("rlqs:tenants", minute).count("edge&name=api&tenant=a"))
        .isEqualTo(100);
    assertThat(wp.counter("rlqs:tenants", minute).count("edge&name=api&tenant=b"))
        .isEqualTo(10);
  }

  @Test
  void tokenBucketStrategy_holdsHalfTheAllowance_andRefillsTheRestOverTheTtl()
      throws Exception {
    BucketAction a = one(envoy(), Map.of("name", "tb"), 100, 0);
    var bucket = a.getQuotaAssignmentAction().getRateLimitStrategy().getTokenBucket();
    assertThat(bucket.getMaxTokens()).isEqualTo(200);
    assertThat(bucket.getTokensPerFill().getValue()).isEqualTo(200);
    assertThat(bucket.getFillInterval().getSeconds()).isEqualTo(2);
  }

  @Test
  void unknownBucket_isAbandoned_andNothingIsRecorded() throws Exception {
    RlqsEnvoy envoy = envoy();
    var answer = envoy.send(reports("edge", usage(Map.of("name", "nope"), 5, 0, 1000),
        usage(Map.of("name", "checkout", "extra", "x"), 5, 0, 1000),
        usage(CHECKOUT, 5, 0, 1000)));
    assertThat(answer.getBucketAction(0).hasAbandonAction()).isTrue();
    assertThat(answer.getBucketAction(1).hasAbandonAction()).isTrue();
    assertThat(answer.getBucketAction(2).hasQuotaAssignmentAction()).isTrue();
    assertThat(checkoutCount()).isEqualTo(5);
    var otherDomain = new RlqsEnvoy(server.rlqsPort().getAsInt());
    envoys.add(otherDomain);
    assertThat(otherDomain.send(reports("elsewhere", usage(CHECKOUT, 5, 0, 1000)))
        .getBucketAction(0).hasAbandonAction()).isTrue();
    assertThat(checkoutCount()).isEqualTo(5);
  }

  @Test
  void bucketReportedIdleForAbandonAfter_isAbandoned_andStartsAfreshWhenUsedAgain()
      throws Exception {
    RlqsEnvoy envoy = envoy();
    assertThat(one(envoy, CHECKOUT, 3, 0).hasQuotaAssignmentAction()).isTrue();
    clock.advance(4_999);
    assertThat(one(envoy, CHECKOUT, 0, 0).hasQuotaAssignmentAction()).isTrue();
    clock.advance(1);
    assertThat(one(envoy, CHECKOUT, 0, 0).hasAbandonAction()).isTrue();
    // Used again: a new subscription.
    assertThat(one(envoy, CHECKOUT, 0, 1).hasQuotaAssignmentAction()).isTrue();
  }

  @Test
  void badReports_areRefusedWithInvalidArgument_andRecordNothing_noneOfTheMessage()
      throws Exception {
    BucketQuotaUsage good = usage(CHECKOUT, 5, 0, 1000);
    Object[][] cases = {
        {usage(CHECKOUT, -5, 0, 1000), "num_requests_allowed must be 0 to 2147483647, was"
            + " 18446744073709551611 (a negative count sent as uint64)"},
        {usage(CHECKOUT, 5, -1, 1000), "num_requests_denied must be 0 to"},
        {usage(CHECKOUT, 1L << 31, 0, 1000), "num_requests_allowed must be 0 to 2147483647"},
        {good.toBuilder().clearBucketId().build(), "bucket_id must hold 1 to 16 entries, was"
            + " missing"},
        {good.toBuilder().setBucketId(RlqsEnvoy.bucketId(Map.of())).build(),
            "bucket_id must hold 1 to 16 entries, was empty"},
        {usage(Map.of("name", ""), 5, 0, 1000), "bucket_id: every key and value must be 1 to"},
        {good.toBuilder().clearTimeElapsed().build(), "time_elapsed must be given and positive,"
            + " was missing"},
        {usage(CHECKOUT, 5, 0, 0), "time_elapsed must be given and positive"},
    };
    for (Object[] c : cases) {
      RlqsEnvoy envoy = envoy();
      RateLimitQuotaUsageReports message = reports("edge", good, (BucketQuotaUsage) c[0]);
      assertThatThrownBy(() -> envoy.send(message))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription())
                .startsWith("bucket_quota_usages[1].").contains((String) c[1]);
          });
    }
    assertThatThrownBy(() -> envoy().send(reports("", good)))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus()
            .getDescription()).isEqualTo("domain must not be empty in a stream's first message"));
    assertThatThrownBy(() -> envoy().send(reports("edge")))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus()
            .getDescription()).isEqualTo("bucket_quota_usages must hold 1 to 10000 reports,"
            + " was 0"));
    assertThat(checkoutCount()).isZero();

    // On a stream in use: later messages may omit the domain but not change it; what was
    // recorded before the refusal stays, the refused message records nothing.
    RlqsEnvoy envoy = envoy();
    one(envoy, CHECKOUT, 7, 0);
    assertThat(envoy.send(RateLimitQuotaUsageReports.newBuilder().addBucketQuotaUsages(
        usage(CHECKOUT, 1, 0, 1000)).build()).getBucketActionCount()).isEqualTo(1);
    assertThatThrownBy(() -> envoy.send(reports("other", good)))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).startsWith("domain must not change");
        });
    assertThat(checkoutCount()).isEqualTo(8);
  }

  @Test
  void silentStream_losesItsShareAtTheTtl_andAnEndedOneToo() throws Exception {
    RlqsEnvoy a = envoy();
    RlqsEnvoy b = envoy();
    RlqsEnvoy c = envoy();
    for (int i = 0; i < 3; i++) {
      one(a, CHECKOUT, 0, 100);
      one(b, CHECKOUT, 0, 100);
      one(c, CHECKOUT, 0, 100);
      clock.advance(500);
    }
    // Demand over the last 2 s: a 400 (its report now included), the fleet 1000: a share of
    // 0.4 of the room, 400, is 133 per second (133 * 3 = 399).
    assertThat(perUnit(one(a, CHECKOUT, 0, 100)).getRequestsPerTimeUnit()).isEqualTo(133);
    assertThat(b.finish()).isEqualTo(Status.OK); // b ends its stream, c goes silent
    clock.advance(2_000 + 200); // one TTL, plus one pane of the demand window
    assertThat(perUnit(one(a, CHECKOUT, 0, 100)).getRequestsPerTimeUnit()).isEqualTo(333);
  }

  @ParameterizedTest(name = "limit {1} per 10 s")
  @CsvSource({"small, 100", "checkout, 1000", "large, 10000"})
  void fleetOfFiveEnvoys_underConcurrentLoad_staysWithinTheStatedBound(String name, long limit)
      throws Exception {
    List<RlqsEnvoy> five = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      five.add(envoy());
    }
    Map<String, String> bucket = Map.of("name", name);
    EnvoyFleet fleet = new EnvoyFleet(five, "edge", bucket, 2_000, 1_000);
    long[] demand = {50, 100, 150, 200, 400}; // per second, for a limit of 1000 per 10 s
    for (int i = 0; i < demand.length; i++) {
      demand[i] = demand[i] * limit / 1000;
    }
    ExecutorService pool = Executors.newFixedThreadPool(5);
    try {
      for (int round = 0; round < 40; round++) {
        clock.advance(1_000);
        fleet.round(pool, clock.millis(), 1_000, demand);
      }
    } finally {
      pool.shutdownNow();
    }
    long bound = limit + 4 * fleet.largestAssignment;
    assertThat(fleet.busiestWindow(10)).isLessThanOrEqualTo(bound);
    // Exact accounting: the engine's window holds exactly what the Envoys reported.
    long last = Math.floorDiv(clock.millis(), 1000);
    assertThat(wp.counter("rlqs:" + name, CHECKOUT_WINDOW).count("edge&name=" + name))
        .isEqualTo(fleet.allowedByPane.subMap(last - 9, last + 1).values().stream()
            .mapToLong(Long::longValue).sum());
    // Not starved: after the first window, every window admits a good part of the limit (the
    // room is handed out whole and refills as old panes leave, so the fleet's window count
    // swings between these two figures; docs/envoy.md gives them).
    long first = fleet.allowedByPane.firstKey();
    long quietest = fleet.quietestWindow(10, first + 10, last);
    System.out.printf("rlqs local fleet: n=5 L=%d/10s T=2s I=1s: busiest window %d, quietest"
        + " %d, largest assignment %d, bound %d%n", limit, fleet.busiestWindow(10), quietest,
        fleet.largestAssignment, bound);
    assertThat(quietest).isGreaterThanOrEqualTo(limit / 4);
  }

  @Test
  void withTokens_aStreamWithoutOne_isUnauthenticated_andOneWithItIsServed() throws Exception {
    String token = "rlqs-test-token-0123456789";
    Path buckets = dir.resolve("buckets.yaml");
    try (WindowpaneServer guarded = WindowpaneServer.start(ServerConfig.parse(config(buckets,
        "auth:\n  tokens: [\"" + token + "\"]"), "auth.yaml"),
        Windowpane.localBuilder().clock(clock).build(), clock);
        RlqsEnvoy anonymous = new RlqsEnvoy(guarded.rlqsPort().getAsInt());
        RlqsEnvoy known = new RlqsEnvoy(guarded.rlqsPort().getAsInt(), token)) {
      assertThatThrownBy(() -> one(anonymous, CHECKOUT, 1, 0))
          .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(
              e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
      assertThat(one(known, CHECKOUT, 1, 0).hasQuotaAssignmentAction()).isTrue();
    }
  }

  @Test
  void metrics_countStreamsBucketsReportsAndAssignmentsByKind() throws Exception {
    RlqsEnvoy envoy = envoy();
    one(envoy, CHECKOUT, 0, 3);
    one(envoy, CHECKOUT, 1000, 0);
    one(envoy, Map.of("name", "nope"), 1, 0);
    String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create(server.url() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertThat(metrics)
        .contains("windowpane_rlqs_streams 1.0")
        .contains("windowpane_rlqs_buckets 1.0")
        .contains("windowpane_rlqs_reports_total{result=\"recorded\"} 2.0")
        .contains("windowpane_rlqs_reports_total{result=\"unknown_bucket\"} 1.0")
        .contains("windowpane_rlqs_assignments_total{kind=\"requests_per_time_unit\"} 1.0")
        .contains("windowpane_rlqs_assignments_total{kind=\"deny_all\"} 1.0")
        .contains("windowpane_rlqs_assignments_total{kind=\"abandon\"} 1.0")
        .contains("windowpane_rlqs_requests_total{outcome=\"allowed\"} 1000.0");
  }
}
