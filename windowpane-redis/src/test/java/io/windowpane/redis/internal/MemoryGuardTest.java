package io.windowpane.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.MemoryStatus.Level;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The guard's levels and hysteresis, and reading INFO replies, without a server. */
class MemoryGuardTest {

  private static final MemoryGuard.Settings S = MemoryGuard.Settings.DEFAULTS; // 70 / 85 / 5

  @Test
  void levels_riseAtTheirThresholds() {
    assertThat(MemoryGuard.next(Level.NORMAL, 0.6999, S)).isEqualTo(Level.NORMAL);
    assertThat(MemoryGuard.next(Level.NORMAL, 0.70, S)).isEqualTo(Level.WARN);
    assertThat(MemoryGuard.next(Level.NORMAL, 0.85, S)).isEqualTo(Level.PRESSURE);
    assertThat(MemoryGuard.next(Level.WARN, 0.8499, S)).isEqualTo(Level.WARN);
    assertThat(MemoryGuard.next(Level.WARN, 0.85, S)).isEqualTo(Level.PRESSURE);
  }

  @Test
  void levels_fallOnlyPastTheHysteresis() {
    assertThat(MemoryGuard.next(Level.PRESSURE, 0.84, S)).isEqualTo(Level.PRESSURE);
    assertThat(MemoryGuard.next(Level.PRESSURE, 0.80, S)).isEqualTo(Level.PRESSURE);
    assertThat(MemoryGuard.next(Level.PRESSURE, 0.7999, S)).isEqualTo(Level.WARN);
    assertThat(MemoryGuard.next(Level.PRESSURE, 0.6499, S)).isEqualTo(Level.NORMAL);
    assertThat(MemoryGuard.next(Level.WARN, 0.66, S)).isEqualTo(Level.WARN);
    assertThat(MemoryGuard.next(Level.WARN, 0.6499, S)).isEqualTo(Level.NORMAL);
    assertThat(MemoryGuard.next(Level.NORMAL, 0, S)).isEqualTo(Level.NORMAL);
  }

  @Test
  void infoText_readsFieldsAcrossSections() {
    Map<String, String> f = InfoText.fields("# Memory\r\nused_memory:1048576\r\n"
        + "maxmemory:0\r\nmaxmemory_policy:noeviction\r\n\n# Stats\r\nevicted_keys:7\r\n");
    assertThat(InfoText.number(f, "used_memory")).isEqualTo(1_048_576);
    assertThat(InfoText.number(f, "maxmemory")).isZero();
    assertThat(InfoText.number(f, "evicted_keys")).isEqualTo(7);
    assertThat(f.get("maxmemory_policy")).isEqualTo("noeviction");
    assertThat(InfoText.number(f, "absent")).isEqualTo(-1);
  }

  @Test
  void status_withoutReadings_isNormalWithNoLimit() {
    MemoryGuard guard = new MemoryGuard(S);
    assertThat(guard.status().level()).isEqualTo(Level.NORMAL);
    assertThat(guard.status().limitBytes()).isZero();
    assertThat(guard.noNewKeys("")).isFalse();
    guard.outOfMemory("");
    assertThat(guard.status().level()).as("a primary never read keeps no level")
        .isEqualTo(Level.NORMAL);
    assertThat(guard.status().outOfMemoryErrors()).isEqualTo(1);
  }
}
