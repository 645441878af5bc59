package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every builder setting is checked at once, naming the argument and its range, before any I/O. */
class EtcdEngineBuilderTest {

  @Test
  void badSettings_areRefusedNamingTheArgumentAndItsRange() {
    EtcdEngine.Builder b = EtcdEngine.builder();
    assertThatThrownBy(() -> b.endpoints()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("endpoints must name at least one URL");
    assertThatThrownBy(() -> b.endpoints("127.0.0.1:2379"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("endpoints must be http:// or https:// URLs, was 127.0.0.1:2379");
    assertThatThrownBy(() -> b.timeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout must be in [1 ms, 600000 ms], was PT0S");
    assertThatThrownBy(() -> b.timeout(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.expiryGrace(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiryGrace must be in");
    assertThatThrownBy(() -> b.conflictRetries(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("conflictRetries must be in [0, 1000], was -1");
    assertThatThrownBy(() -> b.backoff(Duration.ofMillis(50), Duration.ofMillis(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backoff base must be in [1 ms, 10 ms], was PT0.05S");
    assertThatThrownBy(() -> b.maxValueBytes(100)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxValueBytes must be in [1024, 67108864], was 100");
    assertThatThrownBy(() -> b.maxTxnOps(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxTxnOps must be in [1, 10000], was 0");
    assertThatThrownBy(() -> b.maxTxnOps(10_001)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxTxnOps must be in [1, 10000], was 10001");
    assertThatThrownBy(() -> b.namespace("a/b")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("namespace must be 1 to 64 characters of [A-Za-z0-9_.:-], was a/b");
    assertThatThrownBy(() -> b.cachedCounts(Duration.ofMillis(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxStaleness must be in [10 ms, 60000 ms]");
    assertThatThrownBy(() -> b.clock(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("clock must not be null");
    assertThatThrownBy(() -> b.credentials("user", "")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void build_withoutEndpoints_saysWhatIsMissing() {
    assertThatThrownBy(() -> EtcdEngine.builder().build()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("endpoints(...)");
  }
}
