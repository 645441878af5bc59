package io.windowpane.server.rls;

import static io.windowpane.server.rls.RlsClient.d;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.server.WindowpaneServer;
import io.windowpane.server.config.ServerConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Where envoyproxy/ratelimit's behaviour is the contract: its replies and statistics for
 * {@code hits_addend} above one, figure for figure (the figures its own
 * {@code src/limiter/base_limiter.go} gives for the same limit, count before the request and
 * hits), its metric key for {@code share_threshold} with {@code detailed_metric}, and the one
 * documented difference in refusals. Local engine, manual clock, a real gRPC port.
 */
class EnvoyRlsParityTest {

  ManualClock clock;
  WindowpaneServer server;
  RlsClient rls;

  @BeforeEach
  void start() throws Exception {
    clock = ManualClock.at(EnvoyRlsTest.START);
    Path rules = Path.of(EnvoyRlsParityTest.class.getResource("/rls/parity").toURI());
    server = WindowpaneServer.start(ServerConfig.parse(EnvoyRlsTest.config(rules, ""),
        "test.yaml"), Windowpane.localBuilder().clock(clock).build(), clock);
    rls = new RlsClient(server.grpcPort().getAsInt());
  }

  @AfterEach
  void stop() throws Exception {
    rls.close();
    server.close();
  }

  @Test
  void overLimit_hitsBeyondTheRoom_remainingIsZero_nineteenUsedPlusThree() throws Exception {
    use("twenty=a", 19);
    RlsStats before = stats("parity.twenty");
    RateLimitResponse r = rls.call(RlsClient.request("parity", 3, d("twenty=a")));
    assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(r.getStatuses(0).getLimitRemaining()).isZero();
    // The reference: 2 hits beyond 20, and 1 between 16 (80 %) and 20, from 19.
    assertThat(stats("parity.twenty").minus(before)).isEqualTo(new RlsStats(3, 2, 1, 0, 0));
  }

  @Test
  void overLimit_fifteenUsedPlusSeven_splitsTwoOverFourNear_remainingZero() throws Exception {
    use("twenty=b", 15);
    RlsStats before = stats("parity.twenty");
    RateLimitResponse r = rls.call(RlsClient.request("parity", 7, d("twenty=b")));
    assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(r.getStatuses(0).getLimitRemaining()).isZero();
    assertThat(r.getResponseHeadersToAddList()).anyMatch(h ->
        h.getKey().equals("RateLimit-Remaining") && h.getValue().equals("0"));
    assertThat(stats("parity.twenty").minus(before)).isEqualTo(new RlsStats(7, 2, 4, 0, 0));
    // Denied, so nothing was recorded: the five left still fit.
    assertThat(rls.call(RlsClient.request("parity", 5, d("twenty=b"))).getOverallCode())
        .isEqualTo(Code.OK);
  }

  @Test
  void allowed_fiveUsedPlusTwo_onEight_countsOneNear() throws Exception {
    use("eight=a", 5);
    RlsStats before = stats("parity.eight");
    RateLimitResponse r = rls.call(RlsClient.request("parity", 2, d("eight=a")));
    assertThat(r.getOverallCode()).isEqualTo(Code.OK);
    assertThat(r.getStatuses(0).getLimitRemaining()).isEqualTo(1);
    // Near threshold floor(8 x 0.8) = 6: only the hit from 6 to 7 is near.
    assertThat(stats("parity.eight").minus(before)).isEqualTo(new RlsStats(2, 0, 1, 2, 0));
  }

  @Test
  void allowed_fromEmpty_onlyTheHitsPastTheNearThresholdAreNear() throws Exception {
    RlsStats before = stats("parity.twenty");
    rls.call(RlsClient.request("parity", 19, d("twenty=c")));
    assertThat(stats("parity.twenty").minus(before))
        .isEqualTo(new RlsStats(19, 0, 3, 19, 0));
    rls.call(RlsClient.request("parity", 1, d("twenty=c")));
    assertThat(stats("parity.twenty").minus(before))
        .isEqualTo(new RlsStats(20, 0, 4, 20, 0));
  }

  @Test
  void overLimit_moreHitsThanTheLimit_splitAtTheCountBefore() throws Exception {
    use("eight=b", 5);
    RlsStats before = stats("parity.eight");
    RateLimitResponse r = rls.call(RlsClient.request("parity", 9, d("eight=b")));
    assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(r.getStatuses(0).getLimitRemaining()).isZero();
    // 5 + 9 = 14: 6 beyond 8, and 2 from 6 to 8 near, as the reference counts it.
    assertThat(stats("parity.eight").minus(before)).isEqualTo(new RlsStats(9, 6, 2, 0, 0));
  }

  @Test
  void overLimit_atOrPastTheLimitAlready_allHitsOver() throws Exception {
    use("eight=c", 8);
    RlsStats before = stats("parity.eight");
    rls.call(RlsClient.request("parity", 2, d("eight=c")));
    assertThat(stats("parity.eight").minus(before)).isEqualTo(new RlsStats(2, 2, 0, 0, 0));
  }

  @Test
  void shadowMode_overAnswersOkWithZeroRemaining_andCountsOnlyTheHitsBeyondAsShadow()
      throws Exception {
    use("shadow=a", 15);
    RlsStats before = stats("parity.shadow");
    RateLimitResponse r = rls.call(RlsClient.request("parity", 7, d("shadow=a")));
    assertThat(r.getOverallCode()).isEqualTo(Code.OK);
    DescriptorStatus s = r.getStatuses(0);
    assertThat(s.getCode()).isEqualTo(Code.OK);
    assertThat(s.getLimitRemaining()).isZero();
    assertThat(stats("parity.shadow").minus(before)).isEqualTo(new RlsStats(7, 2, 4, 0, 2));
  }

  @Test
  void sameRuleAndKeyTwice_overTogether_eachCountedAtTheReferencesCountBefore()
      throws Exception {
    RlsStats before = stats("parity.eight");
    RateLimitResponse r = rls.call(RlsClient.request("parity", 5, d("eight=d"),
        d("eight=d")));
    assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    // The second at 5 + 5 = 10: 2 over, 2 near (as the reference). The first would fit alone
    // and the reference lets it through; denied here, its 5 hits count over (documented).
    assertThat(stats("parity.eight").minus(before)).isEqualTo(new RlsStats(10, 7, 2, 0, 0));
  }

  @Test
  void shareThresholdWithDetailedMetric_oneMetricKeyWithThePattern() throws Exception {
    rls.call("parity", d("service=svc/user", "endpoint=get"));
    rls.call("parity", d("service=svc/admin", "endpoint=get"));
    RateLimitResponse third = rls.call("parity", d("service=svc/other", "endpoint=get"));
    // One window for every svc/* value ...
    assertThat(third.getStatuses(0).getLimitRemaining()).isEqualTo(77);
    // ... and one metric, keyed as envoyproxy/ratelimit's test/config/config_test.go expects.
    assertThat(stats("parity.service_svc/*.endpoint_get"))
        .isEqualTo(new RlsStats(3, 0, 0, 3, 0));
    assertThat(RlsStats.scrape(server)).doesNotContain("service_svc/user")
        .doesNotContain("service_svc/admin");
  }

  @Test
  void emptyDomainOrNoDescriptors_invalidArgument_whereTheReferenceAnswersUnknown() {
    assertCode(RlsClient.request("", 0, d("twenty=a")), Status.Code.INVALID_ARGUMENT);
    assertCode(RateLimitRequest.newBuilder().setDomain("parity").build(),
        Status.Code.INVALID_ARGUMENT);
  }

  private void use(String entry, int hits) {
    assertThat(rls.call(RlsClient.request("parity", hits, d(entry))).getOverallCode())
        .isEqualTo(Code.OK);
  }

  private void assertCode(RateLimitRequest request, Status.Code code) {
    assertThatThrownBy(() -> rls.call(request)).isInstanceOfSatisfying(
        StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
  }

  private RlsStats stats(String descriptor) throws Exception {
    return RlsStats.of(server, descriptor);
  }
}
