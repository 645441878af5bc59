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
    assertThat(guard.status().level()).as("Redis refused: a primary never read is taken in")
        .isEqualTo(Level.PRESSURE);
    assertThat(guard.noNewKeys("")).isTrue();
    assertThat(guard.status().outOfMemoryErrors()).isEqualTo(1);
  }

  private static RedisSeam.NodeInfo reading(String node, double usage) {
    return new RedisSeam.NodeInfo(node, node, "used_memory:" + (long) (usage * 1000)
        + "\r\nmaxmemory:1000\r\nevicted_keys:0\r\n", null);
  }

  private static RedisSeam.NodeInfo refused(String node) {
    return new RedisSeam.NodeInfo(node, node, null, "NOPERM User limiter has no permissions to"
        + " run the 'info' command");
  }

  @Test
  void infoRefused_isUnknown_andRedisOwnOomStillPutsThePrimaryAtPressure() {
    MemoryGuard guard = new MemoryGuard(S);
    guard.update(refused(""));
    assertThat(guard.status().level()).isEqualTo(Level.UNKNOWN);
    assertThat(guard.noNewKeys("")).as("nothing is shed on a guess").isFalse();
    guard.update(refused(""));
    assertThat(guard.status().levelChanges()).as("one change, one log line").isEqualTo(1);
    guard.outOfMemory("");
    assertThat(guard.status().level()).isEqualTo(Level.PRESSURE);
    assertThat(guard.noNewKeys("")).isTrue();
    guard.update(refused(""));
    assertThat(guard.status().level()).as("an OOM since the last reading: stays")
        .isEqualTo(Level.PRESSURE);
    guard.update(refused(""));
    assertThat(guard.status().level()).as("no OOM since: unknown again")
        .isEqualTo(Level.UNKNOWN);
    guard.update(reading("", 0.5));
    assertThat(guard.status().level()).as("readable again").isEqualTo(Level.NORMAL);
  }

  @Test
  void worstLevel_ranksUnknownAboveNormalAndBelowWarn() {
    MemoryGuard guard = new MemoryGuard(S);
    guard.update(reading("a", 0.5));
    guard.update(refused("b"));
    assertThat(guard.status().level()).isEqualTo(Level.UNKNOWN);
    guard.update(reading("a", 0.75));
    assertThat(guard.status().level()).isEqualTo(Level.WARN);
    assertThat(guard.noNewKeys("b")).isFalse();
  }
}
