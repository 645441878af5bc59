package io.windowpane.server.rls;

import static io.windowpane.server.rls.RlsClient.d;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.UInt64Value;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.RateLimit.Unit;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.windowpane.Failover;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.server.WindowpaneServer;
import io.windowpane.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Envoy rate limit service on the local engine, called over a real port by a grpc-java
 * client, with the rules of envoyproxy/ratelimit's documentation (src/test/resources/rls/rules,
 * a directory of files) and a manual clock.
 */
class EnvoyRlsTest {

  /** A second boundary plus 250 ms: panes of 100 ms are not aligned with the start. */
  static final long START = 1_700_000_000_250L;

  ManualClock clock;
  WindowpaneServer server;
  RlsClient rls;

  static Path rules() throws Exception {
    return Path.of(EnvoyRlsTest.class.getResource("/rls/rules").toURI());
  }

  static String config(Path rules, String extra) {
    return String.join("\n", "server:", "  port: 0", "rls:", "  grpcPort: 0",
        "  config: " + rules, extra, "");
  }

  @BeforeEach
  void start() throws Exception {
    clock = ManualClock.at(START);
    server = WindowpaneServer.start(ServerConfig.parse(config(rules(), ""), "test.yaml"),
        Windowpane.localBuilder().clock(clock).build(), clock);
    rls = new RlsClient(server.grpcPort().getAsInt());
  }

  @AfterEach
  void stop() throws Exception {
    rls.close();
    server.close();
  }

  @Test
  void nested_marketingToNumber_fivePerDayPerNumber_thenOverLimit() {
    for (int i = 1; i <= 5; i++) {
      RateLimitResponse r = rls.call("messaging",
          d("message_type=marketing", "to_number=2061111111"));
      assertThat(r.getOverallCode()).isEqualTo(Code.OK);
      DescriptorStatus s = r.getStatuses(0);
      assertThat(s.getCurrentLimit().getRequestsPerUnit()).isEqualTo(5);
      assertThat(s.getCurrentLimit().getUnit()).isEqualTo(Unit.DAY);
      assertThat(s.getLimitRemaining()).isEqualTo(5 - i);
    }
    RateLimitResponse sixth = rls.call("messaging",
        d("message_type=marketing", "to_number=2061111111"));
    assertThat(sixth.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(sixth.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(sixth.getStatuses(0).getLimitRemaining()).isZero();
    // Another number has its own five.
    assertThat(rls.call("messaging", d("message_type=marketing", "to_number=2062222222"))
        .getStatuses(0).getLimitRemaining()).isEqualTo(4);
  }

  @Test
  void twoDescriptors_eachMatchesItsRule_overallIsOverWhenAnyIs() {
    for (int i = 0; i < 5; i++) {
      rls.call("messaging", d("message_type=marketing", "to_number=1"), d("to_number=1"));
    }
    RateLimitResponse r = rls.call("messaging",
        d("message_type=marketing", "to_number=1"), d("to_number=1"));
    assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(r.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(r.getStatuses(1).getCode()).isEqualTo(Code.OK);
    assertThat(r.getStatuses(1).getCurrentLimit().getRequestsPerUnit()).isEqualTo(100);
    // All or nothing: the allowed descriptor's hit is not kept; 95 of 100 are still free.
    assertThat(r.getStatuses(1).getLimitRemaining()).isEqualTo(95);
  }

  @Test
  void allOrNothing_secondOver_theFirstsCountIsUnchanged_inEitherOrder() {
    for (int i = 0; i < 5; i++) {
      assertThat(rls.call("messaging", d("to_number=2"),
          d("message_type=marketing", "to_number=2")).getOverallCode()).isEqualTo(Code.OK);
    }
    for (int i = 0; i < 3; i++) {
      RateLimitResponse r = i % 2 == 0
          ? rls.call("messaging", d("to_number=2"), d("message_type=marketing", "to_number=2"))
          : rls.call("messaging", d("message_type=marketing", "to_number=2"), d("to_number=2"));
      assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    }
    // Three denied requests left the per-number limit where the five allowed ones put it.
    RateLimitResponse later = rls.call("messaging", d("to_number=2"));
    assertThat(later.getOverallCode()).isEqualTo(Code.OK);
    assertThat(later.getStatuses(0).getLimitRemaining()).isEqualTo(94);
  }

  @Test
  void allOrNothing_exactBoundary_deniedOneMillisecondBefore_bothCountedAtTheInstant() {
    for (int i = 0; i < 3; i++) {
      rls.call("edge_proxy_per_ip", d("exact=k"));
    }
    clock.advance(999);
    RateLimitResponse denied = rls.call("edge_proxy_per_ip", d("remote_address=10.1.1.1"),
        d("exact=k"));
    assertThat(denied.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(denied.getStatuses(1).getCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(denied.getStatuses(1).getDurationUntilReset().getSeconds()).isZero();
    assertThat(denied.getStatuses(1).getDurationUntilReset().getNanos()).isEqualTo(1_000_000);
    assertThat(denied.getStatuses(0).getCode()).isEqualTo(Code.OK);
    assertThat(denied.getStatuses(0).getLimitRemaining()).isEqualTo(10);
    clock.advance(1);
    RateLimitResponse allowed = rls.call("edge_proxy_per_ip", d("remote_address=10.1.1.1"),
        d("exact=k"));
    assertThat(allowed.getOverallCode()).isEqualTo(Code.OK);
    assertThat(allowed.getStatuses(0).getLimitRemaining()).isEqualTo(9);
    assertThat(allowed.getStatuses(1).getLimitRemaining()).isEqualTo(2);
  }

  @Test
  void allOrNothing_aZeroLimitDeniesBeforeTheEngine_theOthersNotCounted() {
    RateLimitResponse r = rls.call("edge_proxy_per_ip", d("key=value"),
        d("remote_address=50.0.0.5"));
    assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(r.getStatuses(0).getCode()).isEqualTo(Code.OK);
    assertThat(r.getStatuses(0).getLimitRemaining()).isEqualTo(300);
    assertThat(rls.call("edge_proxy_per_ip", d("key=value")).getStatuses(0)
        .getLimitRemaining()).isEqualTo(299);
    // The same rule and key twice: their hits together (2 x 6 > 10) can never fit.
    RateLimitResponse twice = rls.call(RlsClient.request("edge_proxy_per_ip", 6,
        d("remote_address=10.2.2.2"), d("remote_address=10.2.2.2")));
    assertThat(twice.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(rls.call("edge_proxy_per_ip", d("remote_address=10.2.2.2")).getStatuses(0)
        .getLimitRemaining()).isEqualTo(9);
  }

  @Test
  void allOrNothing_aShadowRuleOverItsLimitDeniesNothing_andIsCountedOnItsOwn() {
    String[] shadow = d("service=auth", "user=user-a"); // 10 a second, shadow_mode
    String[] enforced = d("service=auth", "user=user-b"); // 20 a second
    for (int i = 0; i < 12; i++) {
      assertThat(rls.call("example6", shadow, enforced).getOverallCode()).isEqualTo(Code.OK);
    }
    RateLimitResponse r = rls.call("example6", enforced);
    assertThat(r.getStatuses(0).getLimitRemaining()).isEqualTo(7);
    for (int i = 0; i < 7; i++) {
      rls.call("example6", enforced);
    }
    RateLimitResponse over = rls.call("example6", shadow, enforced);
    assertThat(over.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(over.getStatuses(0).getCode()).isEqualTo(Code.OK);
  }

  @Test
  void onAnEngineThatCannotLease_eachDescriptorOnItsOwn_asDocumented() throws Exception {
    Windowpane noLeases = Windowpane.using(io.windowpane.testkit.engines.WithoutLeases.wrap(
        Windowpane.localBuilder().clock(clock).buildEngine()));
    try (WindowpaneServer onIt = WindowpaneServer.start(ServerConfig.parse(
            config(rules(), ""), "noleases.yaml"), noLeases, clock);
        RlsClient client = new RlsClient(onIt.grpcPort().getAsInt())) {
      for (int i = 0; i < 5; i++) {
        client.call("messaging", d("message_type=marketing", "to_number=3"), d("to_number=3"));
      }
      RateLimitResponse r = client.call("messaging",
          d("message_type=marketing", "to_number=3"), d("to_number=3"));
      assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
      // The allowed descriptor keeps its hit there, as in envoyproxy/ratelimit: 6 of 100.
      assertThat(r.getStatuses(1).getLimitRemaining()).isEqualTo(94);
    }
  }

  @Test
  void onAFailoverChain_descriptorsStayAllOrNothing() throws Exception {
    Failover chain = Failover.chain(Windowpane.localBuilder().clock(clock).buildEngine())
        .clock(clock).background(false).build();
    try (WindowpaneServer onChain = WindowpaneServer.start(ServerConfig.parse(
            config(rules(), ""), "chain.yaml"), Windowpane.using(chain), clock);
        RlsClient client = new RlsClient(onChain.grpcPort().getAsInt())) {
      for (int i = 0; i < 5; i++) {
        client.call("messaging", d("message_type=marketing", "to_number=3"), d("to_number=3"));
      }
      RateLimitResponse r = client.call("messaging",
          d("message_type=marketing", "to_number=3"), d("to_number=3"));
      assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
      // decided all or nothing on one member: the denied request recorded nothing, 5 of 100
      assertThat(r.getStatuses(1).getLimitRemaining()).isEqualTo(95);
    }
  }

  @Test
  void mostSpecificMatch_keyValueBeforeKey_aZeroLimitDeniesAtOnce() {
    RateLimitResponse listed = rls.call("edge_proxy_per_ip", d("remote_address=50.0.0.5"));
    assertThat(listed.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(listed.getStatuses(0).getCurrentLimit().getRequestsPerUnit()).isZero();
    RateLimitResponse other = rls.call("edge_proxy_per_ip", d("remote_address=50.0.0.1"));
    assertThat(other.getOverallCode()).isEqualTo(Code.OK);
    assertThat(other.getStatuses(0).getCurrentLimit().getRequestsPerUnit()).isEqualTo(10);
    assertThat(other.getStatuses(0).getLimitRemaining()).isEqualTo(9);
  }

  @Test
  void depth_aLongerDescriptorDoesNotMatchAShallowerRule() {
    RateLimitResponse r = rls.call("edge_proxy_per_ip", d("key=value", "subkey=subvalue"));
    assertThat(r.getOverallCode()).isEqualTo(Code.OK);
    assertThat(r.getStatuses(0).hasCurrentLimit()).isFalse();
    assertThat(rls.call("edge_proxy_per_ip", d("key=value")).getStatuses(0).getCurrentLimit()
        .getRequestsPerUnit()).isEqualTo(300);
    // No rule at all: OK without a limit.
    assertThat(rls.call("edge_proxy_per_ip", d("nothing=here")).getStatuses(0))
        .isEqualTo(DescriptorStatus.newBuilder().setCode(Code.OK).build());
  }

  @Test
  void unlimited_alwaysOk_withMaxUint32Remaining() {
    for (int i = 0; i < 50; i++) {
      DescriptorStatus s = rls.call("edge_proxy_per_ip", d("ldap=x")).getStatuses(0);
      assertThat(s.getCode()).isEqualTo(Code.OK);
      assertThat(Integer.toUnsignedLong(s.getLimitRemaining())).isEqualTo(4_294_967_295L);
      assertThat(s.hasCurrentLimit()).isFalse();
    }
  }

  @Test
  void shadowMode_overTheLimitStillOk_andCountedAsShadow() throws Exception {
    for (int i = 0; i < 12; i++) {
      RateLimitResponse r = rls.call("example6", d("service=auth", "user=user-a"));
      assertThat(r.getOverallCode()).isEqualTo(Code.OK);
    }
    String metrics = scrape();
    assertThat(metrics).contains(
        "windowpane_rls_shadow_mode_total{descriptor=\"example6.service.user_user-a\"} 2.0");
    assertThat(metrics).contains(
        "windowpane_rls_over_limit_total{descriptor=\"example6.service.user_user-a\"} 2.0");
    assertThat(metrics).contains(
        "windowpane_rls_total_hits_total{descriptor=\"example6.service.user_user-a\"} 12.0");
    for (int i = 0; i < 20; i++) {
      assertThat(rls.call("example6", d("service=auth", "user=user-b")).getOverallCode())
          .isEqualTo(Code.OK);
    }
    assertThat(rls.call("example6", d("service=auth", "user=user-b")).getOverallCode())
        .isEqualTo(Code.OVER_LIMIT);
  }

  @Test
  void replaces_theReplacedRuleIsNeitherCheckedNorCounted() {
    String[] first = d("key_1=value_1", "user=bkthomps");
    String[] second = d("key_2=value_2", "user=bkthomps");
    for (int i = 0; i < 10; i++) {
      RateLimitResponse r = rls.call("example7", first, second);
      assertThat(r.getOverallCode()).as("call %d", i + 1).isEqualTo(Code.OK);
      assertThat(r.getStatuses(0).hasCurrentLimit()).isFalse();
      assertThat(r.getStatuses(1).getCurrentLimit().getRequestsPerUnit()).isEqualTo(10);
    }
    assertThat(rls.call("example7", first, second).getOverallCode())
        .isEqualTo(Code.OVER_LIMIT);
    // The replaced limit was not changed: its own five are all there.
    assertThat(rls.call("example7", first).getStatuses(0).getLimitRemaining()).isEqualTo(4);
  }

  @Test
  void wildcards_middleAndTrailing_sharedOrPerValue() {
    assertThat(rls.call("example9", d("path=/api/123/action")).getStatuses(0)
        .getCurrentLimit().getRequestsPerUnit()).isEqualTo(2);
    assertThat(rls.call("example9", d("path=/api/123/other")).getStatuses(0).hasCurrentLimit())
        .isFalse();
    for (int i = 0; i < 5; i++) {
      rls.call("example9", d("files=files/a.pdf"));
      rls.call("example9", d("files=files/b.csv"));
      rls.call("example9", d("files_no_share=files_no_share/a.pdf"));
      rls.call("example9", d("files_no_share=files_no_share/a.pdf"));
    }
    // share_threshold: a and b filled one window of 10.
    assertThat(rls.call("example9", d("files=files/c.txt")).getOverallCode())
        .isEqualTo(Code.OVER_LIMIT);
    // Without it each value has its own window.
    assertThat(rls.call("example9", d("files_no_share=files_no_share/a.pdf")).getOverallCode())
        .isEqualTo(Code.OVER_LIMIT);
    assertThat(rls.call("example9", d("files_no_share=files_no_share/b.csv")).getOverallCode())
        .isEqualTo(Code.OK);
  }

  @Test
  void detailedMetric_countsUnderTheRuntimeValue() throws Exception {
    rls.call("example9", d("key1=unspecified_value"));
    rls.call("example9", d("key1=value1"));
    String metrics = scrape();
    assertThat(metrics).contains(
        "windowpane_rls_total_hits_total{descriptor=\"example9.key1_unspecified_value\"} 1.0");
    assertThat(metrics).contains(
        "windowpane_rls_total_hits_total{descriptor=\"example9.key1_value1\"} 1.0");
  }

  @Test
  void hitsAddend_requestAndDescriptorLevel_andMoreThanTheLimitRecordsNothing() {
    RateLimitResponse three = rls.call(RlsClient.request("edge_proxy_per_ip", 3,
        d("remote_address=10.0.0.1")));
    assertThat(three.getStatuses(0).getLimitRemaining()).isEqualTo(7);
    RateLimitDescriptor five = RlsClient.descriptor("remote_address=10.0.0.1").toBuilder()
        .setHitsAddend(UInt64Value.of(5)).build();
    RateLimitResponse r = rls.call(RateLimitRequest.newBuilder().setDomain("edge_proxy_per_ip")
        .setHitsAddend(3).addDescriptors(five).build());
    assertThat(r.getStatuses(0).getLimitRemaining()).isEqualTo(2);
    RateLimitResponse tooMany = rls.call(RlsClient.request("edge_proxy_per_ip", 11,
        d("remote_address=10.0.0.2")));
    assertThat(tooMany.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(rls.call("edge_proxy_per_ip", d("remote_address=10.0.0.2")).getStatuses(0)
        .getLimitRemaining()).isEqualTo(9);
  }

  @Test
  void exactBoundary_logWindow_deniedUntilTheOldestHitLeaves() {
    for (int i = 0; i < 3; i++) {
      assertThat(rls.call("edge_proxy_per_ip", d("exact=k")).getOverallCode())
          .isEqualTo(Code.OK);
    }
    clock.advance(999);
    RateLimitResponse denied = rls.call("edge_proxy_per_ip", d("exact=k"));
    assertThat(denied.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(denied.getStatuses(0).getDurationUntilReset().getNanos()).isEqualTo(1_000_000);
    assertThat(denied.getStatuses(0).getDurationUntilReset().getSeconds()).isZero();
    clock.advance(1);
    RateLimitResponse allowed = rls.call("edge_proxy_per_ip", d("exact=k"));
    assertThat(allowed.getOverallCode()).isEqualTo(Code.OK);
    assertThat(allowed.getStatuses(0).getLimitRemaining()).isEqualTo(2);
  }

  @Test
  void headers_ofTheTightestDescriptor() {
    RateLimitResponse r = rls.call("messaging", d("message_type=marketing", "to_number=7"),
        d("to_number=7"));
    Map<String, String> headers = r.getResponseHeadersToAddList().stream()
        .collect(Collectors.toMap(HeaderValue::getKey, HeaderValue::getValue));
    assertThat(headers).containsEntry("RateLimit-Limit", "5")
        .containsEntry("RateLimit-Remaining", "4")
        // The day window of 96 panes is full again one day after the start of the current
        // 15-minute pane, 800.25 s of which have passed at START: 85,599.75 s, rounded up.
        .containsEntry("RateLimit-Reset", "85600");
  }

  @Test
  void limitInTheRequest_overridesTheRules() {
    RateLimitDescriptor d = RlsClient.descriptor("anything=x").toBuilder()
        .setLimit(RateLimitDescriptor.RateLimitOverride.newBuilder().setRequestsPerUnit(2)
            .setUnit(RateLimitUnit.MINUTE)).build();
    RateLimitRequest request = RateLimitRequest.newBuilder().setDomain("messaging")
        .addDescriptors(d).build();
    assertThat(rls.call(request).getStatuses(0).getLimitRemaining()).isEqualTo(1);
    assertThat(rls.call(request).getOverallCode()).isEqualTo(Code.OK);
    assertThat(rls.call(request).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
  }

  @Test
  void badRequests_answeredWithStatusCodes_recordNothing() {
    assertStatus(RateLimitRequest.newBuilder().addDescriptors(
        RlsClient.descriptor("to_number=1")).build(), Status.Code.INVALID_ARGUMENT, "domain");
    assertStatus(RateLimitRequest.newBuilder().setDomain("messaging").build(),
        Status.Code.INVALID_ARGUMENT, "descriptors");
    assertStatus(RlsClient.request("nope", 0, d("to_number=1")), Status.Code.NOT_FOUND,
        "unknown domain 'nope'");
    RateLimitRequest.Builder many = RateLimitRequest.newBuilder().setDomain("messaging");
    for (int i = 0; i < 65; i++) {
      many.addDescriptors(RlsClient.descriptor("to_number=1"));
    }
    assertStatus(many.build(), Status.Code.INVALID_ARGUMENT, "1 to 64 descriptors, was 65");
    assertStatus(RateLimitRequest.newBuilder().setDomain("messaging")
        .addDescriptors(RateLimitDescriptor.getDefaultInstance()).build(),
        Status.Code.INVALID_ARGUMENT, "descriptors[0].entries");
    assertStatus(RlsClient.request("messaging", 0, d("to_number=1"),
        d("to_number=" + "9".repeat(1025))), Status.Code.INVALID_ARGUMENT,
        "descriptors[1].entries[0].value");
    RateLimitDescriptor zero = RlsClient.descriptor("to_number=1").toBuilder()
        .setHitsAddend(UInt64Value.of(0)).build();
    assertStatus(RateLimitRequest.newBuilder().setDomain("messaging").addDescriptors(zero)
        .build(), Status.Code.INVALID_ARGUMENT, "descriptors[0].hits_addend");
    // None of them counted the valid descriptor they carried.
    assertThat(rls.call("messaging", d("to_number=1")).getStatuses(0).getLimitRemaining())
        .isEqualTo(99);
  }

  private void assertStatus(RateLimitRequest request, Status.Code code, String message) {
    assertThatThrownBy(() -> rls.call(request))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(code);
          assertThat(e.getStatus().getDescription()).contains(message);
        });
  }

  private String scrape() throws Exception {
    return RlsStats.scrape(server);
  }
}
