package io.windowpane.server.config;

import io.windowpane.config.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.spi.EngineSettings;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A valid file reads into exactly the objects the core factories build; and the defaults. */
class ServerConfigLoadTest {

  static Path resource(String name) {
    try {
      return Path.of(ServerConfigLoadTest.class.getResource("/config/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void load_fullFile_readsEverySectionIntoCoreSpecs() throws Exception {
    Path file = resource("full.yaml");
    ServerConfig c = ServerConfig.load(file);

    assertThat(c.source()).contains(file.toString());
    assertThat(c.host()).isEqualTo("0.0.0.0");
    assertThat(c.port()).isEqualTo(9090);
    assertThat(c.maxBodyBytes()).isEqualTo(1_048_576);
    assertThat(c.maxKeyLength()).isEqualTo(128);
    assertThat(c.maxBatch()).isEqualTo(500);
    assertThat(c.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.reloadInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.file()).contains(file);
    // inline tokens first, then the file's (relative to full.yaml), each once
    assertThat(c.tokens()).containsExactly("s3cret-token-0001", "s3cret-token-0002",
        "file-token-aaaaaaaa", "file-token-bbbbbbbb");

    assertThat(c.limiters()).containsExactly(
        Map.entry("api", Quota.of(
            Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10)).named("per-second"),
            Limit.of(1000, WindowSpec.panes(Duration.ofHours(1), 60)))),
        Map.entry("login", Quota.of(Limit.of(5, WindowSpec.log(Duration.ofMinutes(10))))),
        Map.entry("burst", Quota.of(
            Limit.of(100, WindowSpec.weighted(Duration.ofMinutes(1))).named("weighted"))));
    assertThat(c.limiters().get("api").limits().get(1).name()).isEqualTo("1000/1h");

    assertThat(c.counters()).containsExactly(
        Map.entry("logins", WindowSpec.log(Duration.ofMinutes(10))),
        Map.entry("requests", WindowSpec.panes(Duration.ofMinutes(1), 60)),
        Map.entry("pageviews", WindowSpec.weighted(Duration.ofDays(1))));

    assertThat(c.stats()).containsExactly(
        Map.entry("latency", StatsSpec.histogram(Duration.ofMinutes(1), 60)
            .withRelativeAccuracy(0.005).withTrackedRange(1e-3, 1e9)),
        Map.entry("sizes", StatsSpec.histogram(Duration.ofSeconds(10), 10)),
        Map.entry("amounts", StatsSpec.exact(Duration.ofMinutes(10)).withMaxValues(5000)));
  }

  @Test
  void load_fullFile_readsTheRedisEngine() throws Exception {
    EngineConfig e = ServerConfig.load(resource("full.yaml")).engine();

    assertThat(e.kind()).isEqualTo(EngineConfig.Kind.REDIS);
    assertThat(e.onFailure()).isEqualTo(EngineConfig.OnFailure.ALLOW);
    assertThat(e.localMaxKeys()).isEmpty();
    assertThat(e.redisUris()).containsExactly("redis://127.0.0.1:6379");
    EngineSettings redis = e.engineSettings(EngineConfig.Kind.REDIS); // what the engine gets
    assertThat(redis.text("uri")).contains("redis://127.0.0.1:6379");
    assertThat(redis.texts("cluster")).isEmpty();
    assertThat(redis.text("username")).contains("app");
    assertThat(redis.text("password")).contains("hunter2-hunter2");
    assertThat(redis.integer("database")).hasValue(3);
    assertThat(redis.duration("timeout")).contains(Duration.ofMillis(250));
    assertThat(redis.duration("connectTimeout")).contains(Duration.ofSeconds(5));
    assertThat(redis.text("scripts")).contains("evalsha");
    assertThat(redis.text("time")).contains("client");
    assertThat(e.describe()).isEqualTo("redis redis://127.0.0.1:6379");
  }

  @Test
  void defaults_areTheContractsBuiltIns() {
    ServerConfig c = ServerConfig.defaults();

    assertThat(c.host()).isEqualTo("127.0.0.1");
    assertThat(c.port()).isEqualTo(8080);
    assertThat(c.maxBodyBytes()).isEqualTo(65_536);
    assertThat(c.maxKeyLength()).isEqualTo(256);
    assertThat(c.maxBatch()).isEqualTo(1000);
    assertThat(c.shutdownTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.tokens()).isEmpty();
    assertThat(c.source()).isEmpty();
    assertThat(c.engine().kind()).isEqualTo(EngineConfig.Kind.LOCAL);
    assertThat(c.engine().onFailure()).isEqualTo(EngineConfig.OnFailure.ERROR);
    assertThat(c.engine().localMaxKeys()).isEmpty();
    assertThat(c.engine().describe()).isEqualTo("local");
    assertThat(c.limiters()).containsExactly(Map.entry("demo", Quota.of(
        Limit.of(2, WindowSpec.panes(Duration.ofSeconds(10), 10)).named("demo"))));
    assertThat(c.counters()).containsExactly(
        Map.entry("requests", WindowSpec.panes(Duration.ofMinutes(1), 60)));
    assertThat(c.stats()).containsExactly(
        Map.entry("latency", StatsSpec.histogram(Duration.ofMinutes(1), 60)));
    assertThat(c.stats().get("latency").buckets().relativeAccuracy()).isEqualTo(0.01);
  }

  @Test
  void parse_minimalFile_takesDefaultsAndConfiguresOnlyWhatItNames() throws Exception {
    ServerConfig c = ServerConfig.parse("counters:\n  hits:\n    window: 5s\n", "min.yaml");

    assertThat(c.source()).contains("min.yaml");
    assertThat(c.host()).isEqualTo("127.0.0.1");
    assertThat(c.port()).isEqualTo(8080);
    assertThat(c.engine().kind()).isEqualTo(EngineConfig.Kind.LOCAL);
    assertThat(c.limiters()).isEmpty();
    assertThat(c.stats()).isEmpty();
    assertThat(c.counters()).containsExactly(
        Map.entry("hits", WindowSpec.panes(Duration.ofSeconds(5), 10)));
  }

  @Test
  void parse_nothingConfigured_isValid() throws Exception {
    ServerConfig c = ServerConfig.parse("server:\n  port: 0\nlimiters:\ncounters: {}\n", "x");

    assertThat(c.port()).isZero();
    assertThat(c.limiters()).isEmpty();
    assertThat(c.counters()).isEmpty();
    assertThat(c.stats()).isEmpty();
  }

  @Test
  void parse_keepsFileOrderOfNames() throws Exception {
    ServerConfig c = ServerConfig.parse("counters:\n  zeta: {window: 1s}\n  alpha: {window: 1s}\n"
        + "  mid: {window: 1s}\n", "x");

    assertThat(c.counters().keySet()).containsExactly("zeta", "alpha", "mid");
  }

  @Test
  void parse_collectionsAreUnmodifiable() throws Exception {
    ServerConfig c = ServerConfig.parse("auth:\n  tokens: [abcdefghijklmnop]\n"
        + "counters:\n  a: {window: 1s}\n", "x");

    assertThatThrownBy(() -> c.tokens().add("x")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> c.counters().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> c.limiters().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> c.stats().clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void parse_durationsInEveryUnit() throws Exception {
    ServerConfig c = ServerConfig.parse("counters:\n"
        + "  a: {window: 500ms, panes: 5}\n  b: {window: 2s}\n  c: {window: 3m}\n"
        + "  d: {window: 4h}\n  e: {window: 2d}\n", "x");

    assertThat(c.counters().values()).extracting(WindowSpec::windowMillis)
        .containsExactly(500L, 2_000L, 180_000L, 14_400_000L, 172_800_000L);
  }

  @Test
  void parse_quotedNumbersAndDigitGroupsAreNumbers() throws Exception {
    ServerConfig c = ServerConfig.parse("server:\n  port: \"8081\"\n  maxBatch: 1_000\n", "x");

    assertThat(c.port()).isEqualTo(8081);
    assertThat(c.maxBatch()).isEqualTo(1000);
  }

  @Test
  void parse_localEngineWithMaxKeys() throws Exception {
    ServerConfig c = ServerConfig.parse("engine:\n  type: local\n  onFailure: deny\n"
        + "  local:\n    maxKeys: 5000\n", "x");

    assertThat(c.engine().kind()).isEqualTo(EngineConfig.Kind.LOCAL);
    assertThat(c.engine().onFailure()).isEqualTo(EngineConfig.OnFailure.DENY);
    assertThat(c.engine().localMaxKeys()).hasValue(5000);
    assertThat(c.engine().redisUris()).isEmpty();
  }

  @Test
  void toString_neverShowsTokens() throws Exception {
    ServerConfig c = ServerConfig.parse("auth:\n  tokens: [abcdefghijklmnop-secret]\n", "x");

    assertThat(c.toString()).doesNotContain("abcdefghijklmnop-secret").contains("1 tokens");
  }

  @Test
  void limiterDefaultsAreFromTheContract() throws Exception {
    ServerConfig c = ServerConfig.parse("limiters:\n  a:\n    - permits: 3\n      window: 1s\n",
        "x");

    Limit only = c.limiters().get("a").limits().get(0);
    assertThat(only.window()).isEqualTo(WindowSpec.panes(Duration.ofSeconds(1), 10));
    assertThat(only.name()).isEqualTo("3/1s");
    assertThat(c.limiters().get("a").limits()).isEqualTo(List.of(only));
  }
}
