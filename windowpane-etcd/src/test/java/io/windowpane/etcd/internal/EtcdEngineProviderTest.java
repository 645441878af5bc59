package io.windowpane.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.spi.EngineProvider;
import io.windowpane.spi.EngineSettings;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The provider windowpane-config finds: registered, and strict about its options. */
class EtcdEngineProviderTest {

  @Test
  void serviceLoader_findsTheProviderOfKindEtcd() {
    assertThat(ServiceLoader.load(EngineProvider.class).stream()
        .map(ServiceLoader.Provider::get).map(EngineProvider::kind))
        .containsExactly("etcd");
  }

  @Test
  void builder_takesEveryOptionOfTheBlock() {
    new EtcdEngineProvider().builder(EngineSettings.of("etcd")
        .texts("endpoints", List.of("http://127.0.0.1:2379", "http://127.0.0.1:2380"))
        .text("user", "app").text("password", "s3cret").text("namespace", "shop.prod")
        .duration("timeout", Duration.ofSeconds(3))
        .duration("connectTimeout", Duration.ofSeconds(1))
        .duration("expiryGrace", Duration.ofSeconds(2)).integer("conflictRetries", 10)
        .duration("backoffBase", Duration.ofMillis(5))
        .duration("backoffMax", Duration.ofMillis(100))
        .integer("maxValueBytes", 65_536).integer("maxTxnOps", 64)
        .duration("cachedCounts", Duration.ofMillis(50))
        .build());
  }

  @Test
  void builder_passesMaxTxnOpsToTheEngine_whichChecksItsRange() {
    assertThatThrownBy(() -> new EtcdEngineProvider().builder(EngineSettings.of("etcd")
        .texts("endpoints", List.of("http://127.0.0.1:2379")).integer("maxTxnOps", 0).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxTxnOps must be in [1, 10000], was 0");
  }

  @Test
  void builder_unknownOrBadOption_refusedBeforeAnyIo() {
    EngineSettings.Builder base = EngineSettings.of("etcd")
        .texts("endpoints", List.of("http://127.0.0.1:2379"));
    assertThatThrownBy(() -> new EtcdEngineProvider().builder(base.text("endpoint", "x").build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("etcd option endpoint is unknown; the etcd engine takes"
            + " backoffBase, backoffMax, cachedCounts,");
    assertThatThrownBy(() -> new EtcdEngineProvider().builder(EngineSettings.of("etcd")
        .texts("endpoints", List.of("http://127.0.0.1:2379"))
        .duration("backoffMax", Duration.ofMillis(100)).build()))
        .hasMessage("etcd options backoffBase and backoffMax go together, was only backoffMax");
    assertThatThrownBy(() -> new EtcdEngineProvider().builder(EngineSettings.of("etcd")
        .texts("endpoints", List.of("http://127.0.0.1:2379")).text("user", "app").build()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new EtcdEngineProvider().builder(EngineSettings.of("etcd").build()))
        .hasMessage("endpoints must name at least one URL");
  }
}
