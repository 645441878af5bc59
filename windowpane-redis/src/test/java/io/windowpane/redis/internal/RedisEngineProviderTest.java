package io.windowpane.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.spi.DeferredEngine;
import io.windowpane.spi.EngineProvider;
import io.windowpane.spi.EngineSettings;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The provider windowpane-config finds: registered, strict about options, deferred for chains. */
class RedisEngineProviderTest {

  @Test
  void serviceLoader_findsTheProviderOfKindRedis() {
    assertThat(ServiceLoader.load(EngineProvider.class).stream()
        .map(ServiceLoader.Provider::get).map(EngineProvider::kind))
        .containsExactly("redis");
  }

  @Test
  void builder_takesEveryOptionOfTheBlock() {
    new RedisEngineProvider().builder(EngineSettings.of("redis")
        .texts("cluster", List.of("redis://10.0.0.1:7000", "redis://10.0.0.2:7000"))
        .text("username", "app").text("password", "s3cret")
        .duration("timeout", Duration.ofMillis(250))
        .duration("connectTimeout", Duration.ofMillis(500))
        .text("scripts", "evalsha").text("time", "client").build());
    new RedisEngineProvider().builder(EngineSettings.of("redis").text("uri", "redis://h:6379")
        .integer("database", 3).text("scripts", "functions").text("time", "server").build());
    new RedisEngineProvider().builder(EngineSettings.of("redis").text("uri", "redis://h:6379")
        .text("memoryGuard", "on").integer("memoryWarnPercent", 60)
        .integer("memoryPressurePercent", 80).integer("memoryHysteresisPercent", 10)
        .integer("memoryBudgetMb", 256).duration("memoryCheckInterval", Duration.ofSeconds(2))
        .build());
  }

  @Test
  void builder_unknownOrBadOption_refusedBeforeAnyIo() {
    assertThatThrownBy(() -> new RedisEngineProvider().builder(EngineSettings.of("redis")
        .text("uri", "redis://h:6379").text("uris", "redis://h:6379").build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redis option uris is unknown; the redis engine takes cluster,"
            + " connectTimeout, database, memoryBudgetMb, memoryCheckInterval, memoryGuard,"
            + " memoryHysteresisPercent, memoryPressurePercent, memoryWarnPercent, password,"
            + " scripts, time, timeout, uri, username");
    assertThatThrownBy(() -> new RedisEngineProvider().builder(EngineSettings.of("redis")
        .text("uri", "redis://h:6379").text("memoryGuard", "maybe").build()))
        .hasMessage("redis option memoryGuard must be on or off, was maybe");
    assertThatThrownBy(() -> new RedisEngineProvider().builder(EngineSettings.of("redis")
        .text("uri", "redis://h:6379").integer("memoryWarnPercent", 90).build()))
        .hasMessage("pressureAt must be in (warnAt = 0.9, 1], was 0.85");
    assertThatThrownBy(() -> new RedisEngineProvider().builder(EngineSettings.of("redis")
        .text("uri", "redis://h:6379").text("scripts", "lua").build()))
        .hasMessage("redis option scripts must be auto, functions or evalsha, was lua");
    assertThatThrownBy(() -> new RedisEngineProvider().builder(EngineSettings.of("redis").build()))
        .hasMessage("redis needs a uri (one server) or cluster (seed URIs)");
    assertThatThrownBy(() -> new RedisEngineProvider().builder(EngineSettings.of("redis")
        .text("uri", "localhost:6379").build()))
        .hasMessageContaining("uri must start with redis:// or rediss://");
  }

  @Test
  void buildDeferred_backendDown_startsUnconnected_whileBuildFailsFast() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    EngineSettings settings = EngineSettings.of("redis").text("uri", "redis://127.0.0.1:" + port)
        .duration("connectTimeout", Duration.ofMillis(200)).build();
    RedisEngineProvider provider = new RedisEngineProvider();
    try (DeferredEngine deferred = provider.buildDeferred(settings)) {
      assertThat(deferred.connected()).isFalse();
      assertThat(deferred.name()).isEqualTo("redis");
    }
    assertThatThrownBy(() -> provider.build(settings)).isInstanceOf(RuntimeException.class);
  }
}
