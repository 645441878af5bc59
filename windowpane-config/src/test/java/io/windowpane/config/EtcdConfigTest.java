package io.windowpane.config;

import static io.windowpane.config.ConfigFiles.first;
import static io.windowpane.config.ConfigFiles.problem;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The {@code engine.etcd} block: every option, each problem with its line, no leaked secret. */
class EtcdConfigTest {

  @Test
  void parse_etcdDefaults_areTheEnginesExceptTheStatedTimeouts() throws Exception {
    EngineConfig e = ConfigFiles.parse("""
        engine:
          type: etcd
          etcd:
            endpoints: [http://127.0.0.1:2379]
        """, "x").engine();

    assertThat(e.kind()).isEqualTo(EngineConfig.Kind.ETCD);
    assertThat(e.engines()).containsExactly(EngineConfig.Kind.ETCD);
    assertThat(e.chain()).isFalse();
    assertThat(e.etcdEndpoints()).containsExactly("http://127.0.0.1:2379");
    EtcdSettings s = e.etcd();
    assertThat(s.user()).isNull();
    assertThat(s.password()).isNull();
    assertThat(s.namespace()).isEqualTo("windowpane");
    assertThat(s.timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.expiryGrace()).isNull();
    assertThat(s.conflictRetries()).isNull();
    assertThat(s.backoffBase()).isNull();
    assertThat(s.maxValueBytes()).isNull();
    assertThat(s.maxTxnOps()).as("the engine's default, 128").isNull();
    assertThat(s.cachedCounts()).isNull();
    assertThat(s.engineSettings().names()).doesNotContain("maxTxnOps");
    assertThat(e.describe()).isEqualTo("etcd http://127.0.0.1:2379");
  }

  @Test
  void parse_everyEtcdOption() throws Exception {
    EngineConfig e = ConfigFiles.parse("""
        engine:
          type: etcd
          onFailure: deny
          etcd:
            endpoints:
              - http://10.0.0.1:2379
              - http://10.0.0.2:2379
            user: app
            password: etcd-s3cret
            namespace: shop.prod
            timeout: 750ms
            connectTimeout: 3s
            expiryGrace: 2s
            conflictRetries: 10
            backoffBase: 5ms
            backoffMax: 1s
            maxValueBytes: 65536
            maxTxnOps: 64
            cachedCounts: 100ms
        """, "x").engine();

    EtcdSettings s = e.etcd();
    assertThat(s.endpoints()).containsExactly("http://10.0.0.1:2379", "http://10.0.0.2:2379");
    assertThat(s.user()).isEqualTo("app");
    assertThat(s.password()).isEqualTo("etcd-s3cret");
    assertThat(s.namespace()).isEqualTo("shop.prod");
    assertThat(s.timeout()).isEqualTo(Duration.ofMillis(750));
    assertThat(s.connectTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(s.expiryGrace()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.conflictRetries()).isEqualTo(10);
    assertThat(s.backoffBase()).isEqualTo(Duration.ofMillis(5));
    assertThat(s.backoffMax()).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.maxValueBytes()).isEqualTo(65_536);
    assertThat(s.maxTxnOps()).isEqualTo(64);
    assertThat(s.cachedCounts()).isEqualTo(Duration.ofMillis(100));
    assertThat(e.onFailure()).isEqualTo(EngineConfig.OnFailure.DENY);
    assertThat(e.describe()).isEqualTo("etcd http://10.0.0.1:2379,http://10.0.0.2:2379");
    assertThat(s.engineSettings().names()).containsExactly("endpoints", "user", "password",
        "namespace", "timeout", "connectTimeout", "expiryGrace", "conflictRetries",
        "backoffBase", "backoffMax", "maxValueBytes", "maxTxnOps", "cachedCounts"); // the
    // provider's names
    assertThat(s.engineSettings().integer("maxTxnOps")).hasValue(64);
  }

  @Test
  void parse_passwordEnv_readsTheVariable() throws Exception {
    EngineConfig e = ConfigFiles.parse("""
        engine:
          type: etcd
          etcd:
            endpoints: ["http://127.0.0.1:2379"]
            user: root
            passwordEnv: PATH
        """, "x").engine();

    assertThat(e.etcd().password()).isEqualTo(System.getenv("PATH"));
  }

  @Test
  void describe_andToString_neverShowThePassword() throws Exception {
    WindowpaneConfig c = ConfigFiles.parse("""
        engine:
          type: etcd
          etcd:
            endpoints: [http://127.0.0.1:2379]
            user: app
            password: etcd-s3cret
        """, "x");

    assertThat(c.engine().describe()).doesNotContain("s3cret");
    assertThat(c.engine().toString()).doesNotContain("s3cret");
    assertThat(c.engine().etcd().toString()).doesNotContain("s3cret").contains("(set)");
  }

  @Test
  void typeEtcdWithoutBlock_orEtcdBlockWithAnotherType_isAnError() {
    assertThat(first("engine:\n  type: etcd\n")).isEqualTo("windowpane.yaml:2: engine.type etcd"
        + " needs an engine.etcd block with endpoints, e.g. endpoints: [ \"http://127.0.0.1:2379\""
        + " ]");
    assertThat(first("engine:\n  type: local\n  etcd:\n    endpoints: [http://a:2379]\n"))
        .isEqualTo("windowpane.yaml:3: engine.etcd applies to type: etcd; set engine.type: etcd"
            + " to use etcd, or remove engine.etcd");
    assertThat(first("engine:\n  type: etcd\n  redis: {uri: redis://a}\n  etcd:"
        + " {endpoints: [http://a:2379]}\n")).isEqualTo("windowpane.yaml:3: engine.redis applies"
            + " to type: redis; set engine.type: redis to use Redis, or remove engine.redis");
  }

  @Test
  void endpoints_missingEmptyOrNotAList_isAnError() {
    assertThat(first("engine:\n  type: etcd\n  etcd:\n    user: a\n    password: b\n"))
        .isEqualTo("windowpane.yaml:4: engine.etcd.endpoints is required, e.g. endpoints: ["
            + " \"http://127.0.0.1:2379\" ]");
    assertThat(first("engine:\n  type: etcd\n  etcd:\n    endpoints: []\n"))
        .isEqualTo("windowpane.yaml:4: engine.etcd.endpoints must hold at least one URL, e.g."
            + " [ \"http://127.0.0.1:2379\" ]");
    assertThat(first("engine:\n  type: etcd\n  etcd:\n    endpoints: http://a:2379\n"))
        .isEqualTo("windowpane.yaml:4: engine.etcd.endpoints must be a list, e.g. ["
            + " \"http://127.0.0.1:2379\" ], was 'http://a:2379'");
  }

  @Test
  void endpoints_eachBadUrl_namedWithItsIndexAndLine() {
    ConfigException e = problem("""
        engine:
          type: etcd
          etcd:
            endpoints:
              - https://10.0.0.1:2379
              - 10.0.0.2:2379
              - http://10.0.0.3
              - "http://root:pw-s3cret@10.0.0.4:2379"
              - http://10.0.0.5:2379/v3
              - http://10.0.0.6:2379
        """);

    assertThat(e.getMessage()).isEqualTo("""
        windowpane.yaml:5: engine.etcd.endpoints[0] is https://, and TLS to etcd is not\
         available yet (the etcd engine takes no certificates): use http:// on a private\
         network, was https://10.0.0.1:2379
        windowpane.yaml:6: engine.etcd.endpoints[1] must be http://host:port, e.g.\
         http://127.0.0.1:2379, was 10.0.0.2:2379
        windowpane.yaml:7: engine.etcd.endpoints[2] must be http://host:port, e.g.\
         http://127.0.0.1:2379, was http://10.0.0.3
        windowpane.yaml:8: engine.etcd.endpoints[3] must not hold credentials: give\
         engine.etcd.user and password or passwordEnv
        windowpane.yaml:9: engine.etcd.endpoints[4] must be http://host:port with no path,\
         query or fragment, was http://10.0.0.5:2379/v3""");
    assertThat(e.getMessage()).doesNotContain("s3cret");
  }

  @Test
  void optionProblems_eachWithLine() {
    ConfigException e = problem("""
        engine:
          type: etcd
          etcd:
            endpoints: [http://a:2379]
            user: app
            namespace: "a/b"
            timeout: 11m
            connectTimeout: 0ms
            expiryGrace: -1s
            conflictRetries: 1001
            backoffBase: 500ms
            maxValueBytes: 10
            cachedCounts: 5ms
            tls: true
            maxTxnOps: 0
        """);

    assertThat(e.getMessage()).isEqualTo("""
        windowpane.yaml:5: engine.etcd.user needs a password: add password or passwordEnv
        windowpane.yaml:6: engine.etcd.namespace must be 1 to 64 characters of [A-Za-z0-9_.:-],\
         was 'a/b'
        windowpane.yaml:7: engine.etcd.timeout must be 1ms to 10m, was 11m
        windowpane.yaml:8: engine.etcd.connectTimeout must be 1ms to 1m, was 0ms
        windowpane.yaml:9: engine.etcd.expiryGrace must be a duration: a whole number and a unit\
         (ms, s, m, h or d), e.g. 500ms, 10s, 5m, or ISO-8601 such as PT10S; was '-1s'
        windowpane.yaml:10: engine.etcd.conflictRetries must be 0 to 1000, was 1001
        windowpane.yaml:11: engine.etcd.backoffBase (500ms) must be at most backoffMax (200ms)
        windowpane.yaml:12: engine.etcd.maxValueBytes must be 1024 to 67108864, was 10
        windowpane.yaml:13: engine.etcd.cachedCounts must be 10ms to 1m, was 5ms
        windowpane.yaml:14: engine.etcd.tls: unknown key; engine.etcd takes endpoints, user,\
         password, passwordEnv, namespace, timeout, connectTimeout, expiryGrace,\
         conflictRetries, backoffBase, backoffMax, maxValueBytes, maxTxnOps, cachedCounts
        windowpane.yaml:15: engine.etcd.maxTxnOps must be 1 to 10000, was 0""");
  }

  @Test
  void passwordWithoutUser_isAnError() {
    assertThat(first("""
        engine:
          type: etcd
          etcd:
            endpoints: [http://a:2379]
            password: pw
        """)).isEqualTo("windowpane.yaml:5: engine.etcd has a password but no user: etcd"
            + " authenticates a user, add user");
  }
}
