package io.windowpane.config;

import static io.windowpane.config.ConfigFiles.first;
import static io.windowpane.config.ConfigFiles.problem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Windowpane;
import io.windowpane.WindowSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The engine section: local and Redis options, their problems, and what never leaks. */
class EngineConfigTest {

  private static final String NO_SUCH_VARIABLE = "WINDOWPANE_TEST_NO_SUCH_VARIABLE_41c7";

  @Test
  void parse_redisDefaults_areTheContracts() throws Exception {
    EngineConfig e = ConfigFiles.parse(
        "engine:\n  type: redis\n  redis:\n    uri: redis://localhost\n", "x").engine();

    assertThat(e.kind()).isEqualTo(EngineConfig.Kind.REDIS);
    assertThat(e.onFailure()).isEqualTo(EngineConfig.OnFailure.ERROR);
    assertThat(e.redisUris()).containsExactly("redis://localhost");
    assertThat(e.redisCluster()).isFalse();
    assertThat(e.redisUsername()).isEmpty();
    assertThat(e.redisPassword()).isEmpty();
    assertThat(e.redisDatabase()).isEmpty();
    assertThat(e.redisTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(e.redisConnectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(e.redisScripts()).isEqualTo(RedisSettings.Scripts.AUTO);
    assertThat(e.redisClientTime()).isFalse();
  }

  @Test
  void parse_cluster_keepsSeedsInOrder() throws Exception {
    EngineConfig e = ConfigFiles.parse("""
        engine:
          type: redis
          redis:
            cluster: [ "redis://10.0.0.1:7000", "redis://10.0.0.2:7000" ]
            scripts: functions
        """, "x").engine();

    assertThat(e.redisCluster()).isTrue();
    assertThat(e.redisUris()).containsExactly("redis://10.0.0.1:7000", "redis://10.0.0.2:7000");
    assertThat(e.redisScripts()).isEqualTo(RedisSettings.Scripts.FUNCTIONS);
    assertThat(e.describe()).isEqualTo("redis cluster redis://10.0.0.1:7000,redis://10.0.0.2:7000");
  }

  @Test
  void parse_passwordEnv_readsTheVariable() throws Exception {
    EngineConfig e = ConfigFiles.parse("""
        engine:
          type: redis
          redis:
            uri: redis://localhost
            passwordEnv: PATH
        """, "x").engine();

    assertThat(System.getenv("PATH")).isNotEmpty();
    assertThat(e.redisPassword()).contains(System.getenv("PATH"));
  }

  @Test
  void parse_passwordEnvNotSet_namesVariableAndLine() {
    assertThat(System.getenv(NO_SUCH_VARIABLE)).isNull();
    assertThat(first("""
        engine:
          type: redis
          redis:
            uri: redis://localhost
            passwordEnv: %s
        """.formatted(NO_SUCH_VARIABLE))).isEqualTo("windowpane.yaml:5: engine.redis.passwordEnv:"
            + " the environment variable " + NO_SUCH_VARIABLE + " is not set");
  }

  @Test
  void parse_neitherUriNorCluster_isAnError() {
    assertThat(first("engine:\n  type: redis\n  redis:\n    timeout: 1s\n"))
        .isEqualTo("windowpane.yaml:4: engine.redis needs exactly one of uri (one server) or"
            + " cluster (seed URIs of a Redis Cluster), e.g. uri: redis://127.0.0.1:6379");
  }

  @Test
  void parse_bothUriAndCluster_isAnError() {
    assertThat(first("""
        engine:
          type: redis
          redis:
            uri: redis://a
            cluster: [redis://b]
        """)).isEqualTo("windowpane.yaml:5: engine.redis needs exactly one of uri (one server) or"
            + " cluster (seed URIs of a Redis Cluster), not both");
  }

  @Test
  void parse_redisBlockWithTypeLocal_saysToSetTypeRedis() {
    assertThat(first("engine:\n  type: local\n  redis:\n    uri: redis://a\n"))
        .isEqualTo("windowpane.yaml:3: engine.redis applies to type: redis; set engine.type:"
            + " redis to use Redis, or remove engine.redis");
    assertThat(first("engine:\n  redis:\n    uri: redis://a\n"))
        .startsWith("windowpane.yaml:2: engine.redis applies to type: redis");
  }

  @Test
  void parse_typeRedisWithoutBlock_orWithLocalBlock_isAnError() {
    assertThat(first("engine:\n  type: redis\n")).isEqualTo("windowpane.yaml:2: engine.type"
        + " redis needs an engine.redis block with a uri (or cluster), e.g. uri:"
        + " redis://127.0.0.1:6379");
    assertThat(first("engine:\n  type: redis\n  local: {maxKeys: 5}\n  redis: {uri: redis://a}\n"))
        .isEqualTo("windowpane.yaml:3: engine.local applies to type: local; remove it or set"
            + " engine.type: local");
  }

  @Test
  void parse_badUris_areReportedByTheEnginesRules() {
    assertThat(first("engine:\n  type: redis\n  redis:\n    uri: http://a:6379\n"))
        .isEqualTo("windowpane.yaml:4: engine.redis: uri must start with redis:// or rediss://,"
            + " was http://a:6379");
    assertThat(first("engine:\n  type: redis\n  redis:\n    cluster:\n      - redis://a\n"
        + "      - tcp://b\n")).isEqualTo("windowpane.yaml:6: engine.redis.cluster[1]: uri must"
            + " start with redis:// or rediss://, was tcp://b");
    assertThat(first("engine:\n  type: redis\n  redis:\n    uri: redis://a:6379/two\n"))
        .isEqualTo("windowpane.yaml:4: engine.redis: uri is not a valid Redis URI: the path is"
            + " the database number, e.g. redis://127.0.0.1:6379/2, was /two");
  }

  @Test
  void redisUriProblem_followsTheEnginesParser() {
    assertThat(EngineReader.redisUriProblem("redis://localhost")).isNull();
    assertThat(EngineReader.redisUriProblem("rediss://u:p@cache.example:6380/3?timeout=5s"))
        .isNull();
    assertThat(EngineReader.redisUriProblem("redis://h:6379?db=2")).isNull();
    assertThat(EngineReader.redisUriProblem("localhost:6379"))
        .isEqualTo("uri must start with redis:// or rediss://, was localhost:6379");
    assertThat(EngineReader.redisUriProblem("redis://"))
        .isEqualTo("uri is not a valid Redis URI: Expected authority at index 8, was redis://");
    assertThat(EngineReader.redisUriProblem("redis://:s3cret@")).doesNotContain("s3cret")
        .startsWith("uri is not a valid Redis URI: it names no host");
    assertThat(EngineReader.redisUriProblem("redis://h:70000"))
        .isEqualTo("uri is not a valid Redis URI: the port must be at most 65535, was 70000");
    assertThat(EngineReader.redisUriProblem("redis://h:6379?database=x"))
        .isEqualTo("uri is not a valid Redis URI: database must be a database number, was x");
    assertThat(EngineReader.redisUriProblem("redis://u:s3 cret@h:6379"))
        .isEqualTo("uri is not a valid Redis URI: Illegal character in authority at index 8,"
            + " was redis://h:6379");
  }

  @Test
  void parse_redisOptionProblems_eachWithLine() {
    ConfigException e = problem("""
        engine:
          type: redis
          onFailure: open
          redis:
            cluster: [redis://a]
            database: 1
            username: app
            timeout: 0ms
            connectTimeout: 2m
            scripts: lua
            time: local
        """);
    assertThat(e.getMessage()).isEqualTo("""
        windowpane.yaml:3: engine.onFailure must be one of error, allow, deny; was 'open'
        windowpane.yaml:6: engine.redis.database applies to a standalone server only: a Redis\
         Cluster has only database 0
        windowpane.yaml:7: engine.redis.username needs a password: add password or passwordEnv
        windowpane.yaml:8: engine.redis.timeout must be 1ms to 1m, was 0ms
        windowpane.yaml:9: engine.redis.connectTimeout must be 1ms to 1m, was 2m
        windowpane.yaml:10: engine.redis.scripts must be one of auto, functions, evalsha; was\
         'lua'
        windowpane.yaml:11: engine.redis.time must be one of server, client; was 'local'""");
  }

  @Test
  void parse_memoryGuard_givesTheEngineOnlyTheOptionsWritten() throws Exception {
    EngineConfig e = ConfigFiles.parse("""
        engine:
          type: redis
          redis:
            uri: redis://localhost
            memoryGuard:
              warnPercent: 60
              pressurePercent: 80
              budgetMb: 512
              checkInterval: 250ms
        """, "x").engine();
    io.windowpane.spi.EngineSettings s = e.engineSettings(EngineConfig.Kind.REDIS);
    assertThat(s.integer("memoryWarnPercent")).hasValue(60);
    assertThat(s.integer("memoryPressurePercent")).hasValue(80);
    assertThat(s.integer("memoryBudgetMb")).hasValue(512);
    assertThat(s.duration("memoryCheckInterval")).contains(Duration.ofMillis(250));
    assertThat(s.has("memoryGuard")).isFalse();
    assertThat(s.has("memoryHysteresisPercent")).isFalse();
    EngineConfig off = ConfigFiles.parse("""
        engine:
          type: redis
          redis:
            uri: redis://localhost
            memoryGuard:
              enabled: false
        """, "x").engine();
    assertThat(off.engineSettings(EngineConfig.Kind.REDIS).text("memoryGuard")).contains("off");
    EngineConfig none = ConfigFiles.parse(
        "engine:\n  type: redis\n  redis:\n    uri: redis://localhost\n", "x").engine();
    assertThat(none.engineSettings(EngineConfig.Kind.REDIS).names())
        .noneMatch(n -> n.startsWith("memory"));
  }

  @Test
  void parse_memoryGuardProblems_eachWithLine() {
    ConfigException e = problem("""
        engine:
          type: redis
          redis:
            uri: redis://localhost
            memoryGuard:
              warnPercent: 90
              pressurePercent: 80
              speed: 3
        """);
    assertThat(e.getMessage()).contains("engine.redis.memoryGuard.speed: unknown key")
        .contains("engine.redis.memoryGuard: pressurePercent (80) must be above warnPercent"
            + " (90)");
    assertThat(problem("""
        engine:
          type: redis
          redis:
            uri: redis://localhost
            memoryGuard:
              warnPercent: 100
        """).getMessage()).contains("engine.redis.memoryGuard.warnPercent");
  }

  @Test
  void parse_passwordAndPasswordEnv_isAnError() {
    assertThat(first("""
        engine:
          type: redis
          redis:
            uri: redis://a
            password: abc
            passwordEnv: PATH
        """)).isEqualTo("windowpane.yaml:6: engine.redis takes password or passwordEnv, not both");
  }

  @Test
  void parse_localMaxKeysOutOfRange_isAnError() {
    assertThat(first("engine:\n  local:\n    maxKeys: 0\n"))
        .isEqualTo("windowpane.yaml:3: engine.local.maxKeys must be 1 to 2147483647, was 0");
  }

  @Test
  void describe_andToString_neverShowThePassword() throws Exception {
    EngineConfig e = ConfigFiles.parse("""
        engine:
          type: redis
          redis:
            uri: "redis://app:uri-s3cret@10.0.0.1:6379/2?timeout=5s"
            password: file-s3cret
        """, "x").engine();

    assertThat(e.describe()).isEqualTo("redis redis://10.0.0.1:6379/2");
    assertThat(e.toString()).doesNotContain("s3cret");
    assertThat(ConfigFiles.parse("""
        engine:
          type: redis
          redis:
            uri: "redis://:uri-s3cret@10.0.0.1:6379/2"
            password: file-s3cret
        """, "x").engine().toString()).doesNotContain("s3cret")
        .contains("redis://10.0.0.1:6379/2");
  }

  @Test
  void redacted_dropsEverythingBeforeTheLastAt() {
    assertThat(EngineConfig.redacted("rediss://u:p?a#b@host:1/0")).isEqualTo("rediss://host:1/0");
    assertThat(EngineConfig.redacted("redis://u:p@ss@host")).isEqualTo("redis://host");
    assertThat(EngineConfig.redacted("redis://host")).isEqualTo("redis://host");
    assertThat(EngineConfig.redacted("redis://host:6379#frag")).isEqualTo("redis://host:6379");
  }

  @Test
  void open_local_buildsAWorkingLocalEngine() throws Exception {
    EngineConfig e = ConfigFiles.parse("engine:\n  local:\n    maxKeys: 10\n", "x").engine();

    try (Windowpane wp = e.open()) {
      assertThat(wp.engineName()).isEqualTo("local");
      assertThat(wp.counter("c", WindowSpec.panes(Duration.ofSeconds(1), 1)).add("k", 3))
          .isEqualTo(3);
    }
  }

  @Test
  void open_redisWithoutItsModule_failsNamingTheModuleToAdd() throws Exception {
    EngineConfig e = ConfigFiles.parse("""
        engine:
          type: redis
          redis:
            uri: redis://127.0.0.1:6379
        """, "x").engine(); // reading needs no engine module

    assertThatThrownBy(e::open).isInstanceOf(IllegalStateException.class)
        .hasMessage("engine redis needs the module windowpane-redis on the class path: add the"
            + " dependency io.windowpane:windowpane-redis (the version of windowpane-config),"
            + " or configure another engine");
  }
}
