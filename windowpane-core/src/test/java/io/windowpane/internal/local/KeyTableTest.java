package io.windowpane.internal.local;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KeyTableTest {

  private static KeyTable table(long maxKeys, long sweepInterval) {
    return new KeyTable(now -> new KeyState(new Window[] {PaneWindow.panes(100, 10, now)}, now),
        1_100, maxKeys, sweepInterval, 0);
  }

  @Test
  void full_evictsTheKeysIdleLongest_andStaysBounded() {
    KeyTable table = table(160, 1_000_000);
    for (int i = 0; i < 1_000; i++) {
      KeyState s = table.forWrite("k" + i, i / 10);
      s.touch(i / 10);
    }
    assertThat(table.size()).isLessThanOrEqualTo(160);
    assertThat(table.forRead("k999", 100)).as("the newest key").isNotNull();
    assertThat(table.forRead("k0", 100)).as("the oldest key").isNull();
  }

  @Test
  void sweep_runsFromOperationsOncePerInterval_andDropsExpiredKeys() {
    KeyTable table = table(1_000, 500);
    for (int i = 0; i < 100; i++) {
      table.forWrite("k" + i, 0).touch(0);
    }
    table.forWrite("late", 1_000).touch(1_000);
    assertThat(table.size()).isEqualTo(101); // the sweep at 1000 found nothing expired yet
    table.forRead("anything", 1_600);        // due again: k0..k99 expired at 1100
    assertThat(table.size()).isEqualTo(1);
  }

  @Test
  void expiredKey_isNeverReturned_evenBeforeTheSweep() {
    KeyTable table = table(1_000, 1_000_000);
    table.forWrite("k", 0).touch(0);
    assertThat(table.forRead("k", 1_099)).isNotNull();
    assertThat(table.forRead("k", 1_100)).isNull();
    KeyState fresh = table.forWrite("k", 1_100);
    assertThat(fresh.windows[0].count(1_100)).isZero();
  }
}
