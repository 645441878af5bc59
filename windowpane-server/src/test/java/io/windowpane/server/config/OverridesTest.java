package io.windowpane.server.config;

import io.windowpane.config.*;
import io.windowpane.spi.EngineSettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Command-line overrides: copies with one value changed, and their bad input. */
class OverridesTest {

  private static final String FILE = """
      server:
        port: 9000
        maxBatch: 7
      auth:
        tokens: [ "file-token-00000001" ]
      engine:
        type: redis
        onFailure: deny
        redis:
          cluster: [ "redis://10.0.0.1:7000" ]
          username: app
          password: pw-from-file
          timeout: 300ms
          scripts: evalsha
          time: client
      counters:
        c: {window: 1s}
      """;

  @Test
  void withHostAndPort_changeOnlyThem() throws Exception {
    ServerConfig base = ServerConfig.parse(FILE, "f.yaml");
    ServerConfig c = base.withHost("0.0.0.0").withPort(0);

    assertThat(c.host()).isEqualTo("0.0.0.0");
    assertThat(c.port()).isZero();
    assertThat(c.maxBatch()).isEqualTo(7);
    assertThat(c.counters()).isEqualTo(base.counters());
    assertThat(c.tokens()).isEqualTo(base.tokens());
    assertThat(c.source()).contains("f.yaml");
    assertThat(base.host()).isEqualTo("127.0.0.1"); // the original is unchanged
    assertThat(base.port()).isEqualTo(9000);
    assertThat(base.withPort(65535).port()).isEqualTo(65535);
  }

  @Test
  void withPort_outOfRange_namesOptionAndRange() {
    ServerConfig c = ServerConfig.defaults();

    assertThatThrownBy(() -> c.withPort(65536)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("port (--port) must be 0 to 65535, was 65536");
    assertThatThrownBy(() -> c.withPort(-1)).hasMessage("port (--port) must be 0 to 65535,"
        + " was -1");
  }

  @Test
  void withHost_bad_namesOption() {
    ServerConfig c = ServerConfig.defaults();

    assertThatThrownBy(() -> c.withHost("")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("host (--host) must be a host name or IP address of 1 to 253 characters,"
            + " was 0 characters long");
    assertThatThrownBy(() -> c.withHost("http://x")).hasMessageStartingWith("host (--host)"
        + " must be a host name or IP address (no spaces");
    assertThatThrownBy(() -> c.withHost(null)).hasMessageStartingWith("host (--host)");
  }

  @Test
  void withRedisUri_fromLocal_switchesToRedisWithDefaults() {
    ServerConfig c = ServerConfig.defaults().withRedisUri("redis://127.0.0.1:6380");

    assertThat(c.engine().kind()).isEqualTo(EngineConfig.Kind.REDIS);
    assertThat(c.engine().redisUris()).containsExactly("redis://127.0.0.1:6380");
    EngineSettings redis = c.engine().engineSettings(EngineConfig.Kind.REDIS);
    assertThat(redis.text("uri")).contains("redis://127.0.0.1:6380");
    assertThat(redis.texts("cluster")).isEmpty();
    assertThat(redis.duration("timeout")).contains(Duration.ofSeconds(1));
    assertThat(c.engine().describe()).isEqualTo("redis redis://127.0.0.1:6380");
    assertThat(c.limiters()).isEqualTo(ServerConfig.defaults().limiters());
  }

  @Test
  void withRedisUri_overCluster_keepsOtherRedisSettings() throws Exception {
    ServerConfig c = ServerConfig.parse(FILE, "f.yaml").withRedisUri("rediss://cache:6379");
    EngineConfig e = c.engine();

    assertThat(e.redisUris()).containsExactly("rediss://cache:6379");
    EngineSettings redis = e.engineSettings(EngineConfig.Kind.REDIS); // what the engine gets
    assertThat(redis.text("uri")).contains("rediss://cache:6379");
    assertThat(redis.texts("cluster")).isEmpty();
    assertThat(redis.text("username")).contains("app");
    assertThat(redis.text("password")).contains("pw-from-file");
    assertThat(redis.duration("timeout")).contains(Duration.ofMillis(300));
    assertThat(redis.text("scripts")).contains("evalsha");
    assertThat(redis.text("time")).contains("client");
    assertThat(e.onFailure()).isEqualTo(EngineConfig.OnFailure.DENY);
  }

  @Test
  void withRedisUri_bad_namesOption() {
    assertThatThrownBy(() -> ServerConfig.defaults().withRedisUri("localhost:6379"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redis (--redis): uri must start with redis:// or rediss://, was"
            + " localhost:6379");
  }

  @Test
  void withTokens_addsAfterTheFilesOnce() throws Exception {
    ServerConfig c = ServerConfig.parse(FILE, "f.yaml")
        .withTokens(List.of("cli-token-000000001", "file-token-00000001"));

    assertThat(c.tokens()).containsExactly("file-token-00000001", "cli-token-000000001");
    assertThat(ServerConfig.defaults().withTokens(List.of("cli-token-000000001")).tokens())
        .containsExactly("cli-token-000000001");
  }

  @Test
  void withTokens_bad_namesIndexNeverToken() {
    ServerConfig c = ServerConfig.defaults();

    assertThatThrownBy(() -> c.withTokens(List.of("good-token-00000000", "tiny")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tokens[1] (--token-file) must be 16 to 512 visible ASCII characters with no"
            + " spaces, was 4 characters long");
    assertThatThrownBy(() -> c.withTokens(List.of())).hasMessage("tokens (--token-file) must"
        + " hold at least one token, was empty");
    assertThatThrownBy(() -> c.withTokens(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> c.withTokens(Arrays.asList((String) null)))
        .hasMessage("tokens[0] (--token-file) must be 16 to 512 visible ASCII characters with no"
            + " spaces, was null");
  }
}
