package io.windowpane.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The 300-slot ring of per-second counts behind the dashboard's history. */
class SecondRingTest {

  @Test
  void add_sumsWithinASecond_andAQuietSecondReadsZero() {
    SecondRing ring = new SecondRing(2);
    assertThat(ring.add(-1, new long[] {3, 1})).isTrue(); // before the epoch: floorMod slot
    ring.add(-1, new long[] {2, 0});
    assertThat(ring.has(-1)).isTrue();
    assertThat(ring.count(-1, 0)).isEqualTo(5);
    assertThat(ring.count(-1, 1)).isEqualTo(1);
    assertThat(ring.has(0)).isFalse();
    assertThat(ring.count(0, 0)).isZero();
  }

  @Test
  void wrap_reusesTheSlot_andForgetsTheSecond300Before() {
    SecondRing ring = new SecondRing(1);
    long start = Long.MAX_VALUE / 1000 - 1000; // the last seconds a millisecond clock can reach
    ring.add(start, new long[] {7});
    ring.add(start + 299, new long[] {1});
    assertThat(ring.has(start)).as("299 seconds later it is still kept").isTrue();
    ring.add(start + 300, new long[] {4}); // same slot as start
    assertThat(ring.has(start)).isFalse();
    assertThat(ring.count(start, 0)).isZero();
    assertThat(ring.count(start + 300, 0)).as("the slot was reset, not added to").isEqualTo(4);
  }

  @Test
  void aSecondNoLongerKept_isRefused_andChangesNothing() {
    SecondRing ring = new SecondRing(1);
    ring.add(1000, new long[] {5});
    ring.add(1300, new long[] {1});
    assertThat(ring.add(1000, new long[] {9})).isFalse();
    assertThat(ring.count(1300, 0)).isEqualTo(1);
    assertThat(ring.has(1000)).isFalse();
    assertThat(ring.add(1001, new long[] {2})).as("299 seconds before the newest").isTrue();
    assertThat(ring.count(1001, 0)).isEqualTo(2);
  }

  @Test
  void badWidthOrDeltas_areRefused() {
    assertThatThrownBy(() -> new SecondRing(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("width must be >= 1");
    SecondRing ring = new SecondRing(3);
    assertThatThrownBy(() -> ring.add(1, new long[] {1})).isInstanceOf(
        IllegalArgumentException.class).hasMessageContaining("deltas must have 3 counts");
    assertThat(ring.has(1)).isFalse();
  }
}
