package io.windowpane.config;

import static io.windowpane.config.ConfigFiles.first;
import static io.windowpane.config.ConfigFiles.problem;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Limit;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.internal.failover.FailoverSettings;
import io.windowpane.config.EngineConfig.Kind;
import io.windowpane.spi.Engine;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code engine.chain} and {@code engine.failover}: good chains, and each bad one's message. */
class ChainConfigTest {

  private static final String REDIS = "  redis: {uri: redis://127.0.0.1:6379}\n";
  private static final String ETCD = "  etcd: {endpoints: [http://127.0.0.1:2379]}\n";

  @Test
  void parse_chainWithEveryFailoverOption() throws Exception {
    EngineConfig e = ConfigFiles.parse("""
        engine:
          chain: [redis, etcd, local]
          onFailure: allow
          redis:
            uri: redis://127.0.0.1:6379
            timeout: 200ms
          etcd:
            endpoints: [http://127.0.0.1:2379]
          local:
            maxKeys: 5000
          failover:
            probeInterval: 200ms
            probeTimeout: 150ms
            probeFailuresToTrip: 4
            callTimeout: 80ms
            failuresToTrip: 6
            latencyThreshold: 40ms
            latencyWindow: 100ms
            slowWindowsToTrip: 0
            probesToRecover: 3
            probesToRecoverAfterDouble: 7
            fleetNodes: 4
            journalLimit: 1000
        """, "x").engine();

    assertThat(e.chain()).isTrue();
    assertThat(e.engines()).containsExactly(Kind.REDIS, Kind.ETCD, Kind.LOCAL);
    assertThat(e.kind()).isEqualTo(Kind.REDIS);
    assertThat(e.onFailure()).isEqualTo(EngineConfig.OnFailure.ALLOW);
    assertThat(e.localMaxKeys()).hasValue(5000);
    assertThat(e.redisTimeout()).isEqualTo(Duration.ofMillis(200));
    assertThat(e.etcdEndpoints()).containsExactly("http://127.0.0.1:2379");
    assertThat(e.failover()).isEqualTo(new FailoverOptions(Duration.ofMillis(200),
        Duration.ofMillis(150), 4, Duration.ofMillis(80), 6, Duration.ofMillis(40),
        Duration.ofMillis(100), 0, 3, 7, 0.25, 1000, java.util.Map.of()));
    assertThat(e.describe()).isEqualTo("chain redis redis://127.0.0.1:6379 -> etcd"
        + " http://127.0.0.1:2379 -> local");
  }

  @Test
  void failoverDefaults_areTheLibrarys() throws Exception {
    FailoverOptions d = ConfigFiles.parse("engine:\n  chain: [local]\n", "x").engine()
        .failover();
    FailoverSettings lib = FailoverSettings.DEFAULTS;

    assertThat(d).isEqualTo(FailoverOptions.DEFAULTS);
    assertThat(d.probeInterval().toMillis()).isEqualTo(lib.probeIntervalMillis());
    assertThat(d.probeTimeout()).isNull(); // each engine's own (Engine.failoverTimeout)
    assertThat(lib.probeTimeoutSet()).isFalse();
    assertThat(d.probeFailuresToTrip()).isEqualTo(lib.probeFailuresToTrip());
    assertThat(d.callTimeout()).isNull();
    assertThat(lib.callTimeoutSet()).isFalse();
    assertThat(d.failuresToTrip()).isEqualTo(lib.failuresToTrip());
    assertThat(d.latencyThreshold().toMillis()).isEqualTo(lib.latencyThresholdMillis());
    assertThat(d.latencyWindow().toMillis()).isEqualTo(lib.latencyWindowMillis());
    assertThat(d.slowWindowsToTrip()).isEqualTo(lib.slowWindowsToTrip());
    assertThat(d.probesToRecover()).isEqualTo(lib.probesToRecover());
    assertThat(d.probesToRecoverAfterDouble()).isEqualTo(lib.probesToRecoverDouble());
    assertThat(d.fleetShare()).isEqualTo(lib.fleetShare());
    assertThat(d.journalLimit()).isEqualTo(lib.journalLimit());
  }

  @Test
  void parse_memberTimeouts_forMembersOfTheChain_others_aProblemWithTheLine() throws Exception {
    FailoverOptions f = ConfigFiles.parse("""
        engine:
          chain: [etcd, local]
          etcd: {endpoints: ["http://127.0.0.1:2379"]}
          failover:
            members:
              etcd: {callTimeout: 2s}
        """, "x").engine().failover();
    assertThat(f.members()).containsExactly(java.util.Map.entry("etcd",
        new FailoverOptions.MemberTimeouts(Duration.ofSeconds(2), Duration.ofMillis(500))));
    assertThat(f.callTimeout()).isNull();

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConfigFiles.parse("""
        engine:
          chain: [etcd, local]
          etcd: {endpoints: ["http://127.0.0.1:2379"]}
          failover:
            members:
              redis: {callTimeout: 2s}
        """, "x")).hasMessageContaining(
            "engine.failover.members.redis: redis is not in the chain [etcd, local]");
  }

  @Test
  void parse_fleetShare_andProbesToRecoverAboveTheDefaultDouble() throws Exception {
    FailoverOptions f = ConfigFiles.parse("""
        engine:
          chain: [local]
          failover: {fleetShare: 0.5, probesToRecover: 8}
        """, "x").engine().failover();

    assertThat(f.fleetShare()).isEqualTo(0.5);
    assertThat(f.probesToRecover()).isEqualTo(8);
    assertThat(f.probesToRecoverAfterDouble()).isEqualTo(8); // never below probesToRecover
  }

  @Test
  void localInAChain_needsNoBlock() throws Exception {
    EngineConfig e = ConfigFiles.parse("engine:\n  chain: [redis, local]\n" + REDIS, "x")
        .engine();

    assertThat(e.engines()).containsExactly(Kind.REDIS, Kind.LOCAL);
    assertThat(e.localMaxKeys()).isEmpty();
  }

  @Test
  void typeForm_isUnchanged_andIsNoChain() throws Exception {
    EngineConfig e = ConfigFiles.parse("engine:\n  type: redis\n" + REDIS, "x").engine();

    assertThat(e.chain()).isFalse();
    assertThat(e.engines()).containsExactly(Kind.REDIS);
    assertThat(e.describe()).isEqualTo("redis redis://127.0.0.1:6379");
  }

  @Test
  void emptyChain_isAnError() {
    assertThat(first("engine:\n  chain: []\n")).isEqualTo("windowpane.yaml:2: engine.chain must"
        + " name 1 to 3 engines in order of preference, e.g. [redis, local]; was empty");
    assertThat(first("engine:\n  chain:\n")).isEqualTo("windowpane.yaml:2: engine.chain must be"
        + " a list, e.g. [redis, local], was empty");
    assertThat(first("engine:\n  chain: redis\n")).isEqualTo("windowpane.yaml:2: engine.chain"
        + " must be a list, e.g. [redis, local], was 'redis'");
  }

  @Test
  void unknownEngine_isAnError() {
    assertThat(first("engine:\n  chain: [redis, memcached]\n" + REDIS)).isEqualTo(
        "windowpane.yaml:2: engine.chain[1] must be one of local, redis, etcd; was 'memcached'");
  }

  @Test
  void duplicateEngine_isAnError() {
    assertThat(first("""
        engine:
          chain:
            - redis
            - local
            - redis
          redis: {uri: redis://a}
        """)).isEqualTo("windowpane.yaml:5: engine.chain[2]: redis is also engine.chain[0];"
            + " name each engine once");
  }

  @Test
  void typeAndChain_isAnError() {
    assertThat(first("engine:\n  type: redis\n  chain: [redis, local]\n" + REDIS)).isEqualTo(
        "windowpane.yaml:3: engine takes type (one engine) or chain (several, in order of"
            + " preference), not both");
  }

  @Test
  void memberWithoutItsBlock_isAnError() {
    assertThat(problem("engine:\n  chain:\n    - redis\n    - etcd\n    - local\n").getMessage())
        .isEqualTo("""
            windowpane.yaml:3: engine.chain[0] is redis, which needs an engine.redis block with\
             a uri (or cluster), e.g. uri: redis://127.0.0.1:6379
            windowpane.yaml:4: engine.chain[1] is etcd, which needs an engine.etcd block with\
             endpoints, e.g. endpoints: [ "http://127.0.0.1:2379" ]""");
  }

  @Test
  void blockOfAnEngineOutsideTheChain_isAnError() {
    assertThat(first("engine:\n  chain: [redis, local]\n" + REDIS + ETCD)).isEqualTo(
        "windowpane.yaml:4: engine.etcd is set but etcd is not in engine.chain; add it to the"
            + " chain or remove engine.etcd");
    assertThat(first("engine:\n  chain: [redis]\n" + REDIS + "  local: {maxKeys: 5}\n"))
        .isEqualTo("windowpane.yaml:4: engine.local is set but local is not in engine.chain;"
            + " add it to the chain or remove engine.local");
  }

  @Test
  void failoverWithoutChain_isAnError() {
    assertThat(first("engine:\n  type: local\n  failover: {callTimeout: 50ms}\n")).isEqualTo(
        "windowpane.yaml:3: engine.failover applies to engine.chain; remove it, or list the"
            + " engines in order, e.g. chain: [redis, local]");
  }

  @Test
  void negativeOrOutOfRangeThresholds_eachWithLine() {
    ConfigException e = problem("""
        engine:
          chain: [local]
          failover:
            probeInterval: 5ms
            probeTimeout: -100ms
            probeFailuresToTrip: 0
            callTimeout: 2m
            failuresToTrip: -3
            latencyThreshold: 0ms
            latencyWindow: 55ms
            slowWindowsToTrip: 101
            probesToRecover: 4
            probesToRecoverAfterDouble: 3
            fleetNodes: 0
            journalLimit: -1
            retries: 3
        """);

    assertThat(e.getMessage()).isEqualTo("""
        windowpane.yaml:4: engine.failover.probeInterval must be 10ms to 1m, was 5ms
        windowpane.yaml:5: engine.failover.probeTimeout must be a duration: a whole number and\
         a unit (ms, s, m, h or d), e.g. 500ms, 10s, 5m, or ISO-8601 such as PT10S; was '-100ms'
        windowpane.yaml:6: engine.failover.probeFailuresToTrip must be 1 to 100, was 0
        windowpane.yaml:7: engine.failover.callTimeout must be 1ms to 1m, was 2m
        windowpane.yaml:8: engine.failover.failuresToTrip must be 1 to 10000, was -3
        windowpane.yaml:9: engine.failover.latencyThreshold must be 1ms to 1m, was 0ms
        windowpane.yaml:10: engine.failover.latencyWindow must be a multiple of 10ms, was 55ms
        windowpane.yaml:11: engine.failover.slowWindowsToTrip must be 0 to 100, was 101
        windowpane.yaml:13: engine.failover.probesToRecoverAfterDouble must be at least\
         probesToRecover (4), was 3
        windowpane.yaml:14: engine.failover.fleetNodes must be 1 to 100000, was 0
        windowpane.yaml:15: engine.failover.journalLimit must be 0 to 100000000, was -1
        windowpane.yaml:16: engine.failover.retries: unknown key; engine.failover takes\
         probeInterval, probeTimeout, probeFailuresToTrip, callTimeout, failuresToTrip,\
         latencyThreshold, latencyWindow, slowWindowsToTrip, probesToRecover,\
         probesToRecoverAfterDouble, fleetNodes, fleetShare, journalLimit, members""");
  }

  @Test
  void fleetShare_outOfRange_orWithFleetNodes_isAnError() {
    assertThat(first("engine:\n  chain: [local]\n  failover: {fleetShare: 1.5}\n")).isEqualTo(
        "windowpane.yaml:3: engine.failover.fleetShare must be more than 0 and at most 1 (the"
            + " part of each limit this node allows), was 1.5");
    assertThat(first("engine:\n  chain: [local]\n  failover: {fleetShare: 0}\n"))
        .startsWith("windowpane.yaml:3: engine.failover.fleetShare must be more than 0");
    assertThat(first("engine:\n  chain: [local]\n  failover: {fleetNodes: 2, fleetShare: 0.5}\n"))
        .isEqualTo("windowpane.yaml:3: engine.failover takes fleetNodes or fleetShare, not both");
  }

  @Test
  void openEngine_chain_isAFailoverWhoseDecisionsNameTheMember() throws Exception {
    EngineConfig e = ConfigFiles.parse("""
        engine:
          chain: [local]
          onFailure: deny
          local: {maxKeys: 10}
          failover: {fleetNodes: 2}
        """, "x").engine();

    Engine engine = e.openEngine();
    assertThat(engine).isInstanceOf(Failover.class);
    try (Windowpane wp = Windowpane.using(engine)) {
      Decision d = wp.limiter("l", Limit.of(10, WindowSpec.panes(Duration.ofSeconds(10), 10)))
          .tryAcquire("k", 1);
      assertThat(d.allowed()).isTrue();
      assertThat(d.engine()).contains("local");
      assertThat(d.degraded()).isFalse();
      assertThat(d.remaining()).isEqualTo(4); // fleetNodes 2: half of 10 on this node
      assertThat(((Failover) engine).activeEngine()).isEqualTo("local");
    }
  }
}
