package io.windowpane.server.internal;

import java.util.Arrays;

/*
 * The last five minutes of one series of per-second counts, for the dashboard's history
 * (DashboardHistory): 300 one-second slots, each holding `width` counts.
 *
 * Second s lives in slot floorMod(s, 300) and the slot is stamped with s. A slot stamped with
 * another second holds an older second (the ring wrapped) or nothing, and reads as zero: so a
 * second in which nothing was added costs nothing and reads as zero, and wrapping needs no
 * clearing pass, since the writer resets a slot when it stamps it with a newer second. Seconds
 * are epoch seconds (floorDiv of epoch milliseconds), negative ones included; no second is
 * Long.MIN_VALUE, which marks a slot never written.
 *
 * Invariant: every stamped slot holds a second in (newest - 300, newest], so the ring never
 * answers for more than the 300 seconds ending at the newest one written. A second older than
 * that is refused rather than written over a newer one.
 *
 * Not thread-safe: DashboardHistory touches its rings under its lock only.
 */
final class SecondRing {

  /** Slots, one a second: five minutes. */
  static final int SECONDS = 300;

  private static final long NEVER = Long.MIN_VALUE;

  private final int width;
  private final long[] stamps = new long[SECONDS];
  private final long[] counts;
  private long newest = NEVER;

  /** An empty ring of {@code width} counts a second. */
  SecondRing(int width) {
    if (width < 1) {
      throw new IllegalArgumentException("width must be >= 1, was " + width);
    }
    this.width = width;
    this.counts = new long[SECONDS * width];
    Arrays.fill(stamps, NEVER);
  }

  /**
   * Adds {@code deltas} (one per count) to {@code second}. Returns false, changing nothing, when
   * {@code second} is 300 or more seconds older than the newest second added.
   */
  boolean add(long second, long[] deltas) {
    if (deltas.length != width) {
      throw new IllegalArgumentException("deltas must have " + width + " counts, had "
          + deltas.length);
    }
    if (newest != NEVER && second <= newest - SECONDS) {
      return false;
    }
    int slot = Math.floorMod(second, SECONDS);
    int base = slot * width;
    if (stamps[slot] != second) {
      stamps[slot] = second;
      Arrays.fill(counts, base, base + width, 0L);
    }
    for (int i = 0; i < width; i++) {
      counts[base + i] += deltas[i];
    }
    newest = newest == NEVER ? second : Math.max(newest, second);
    return true;
  }

  /** Whether anything was added to {@code second} (and it is still kept). */
  boolean has(long second) {
    return newest != NEVER && second > newest - SECONDS
        && stamps[Math.floorMod(second, SECONDS)] == second;
  }

  /** Count {@code index} of {@code second}: zero when nothing was added then, or no longer kept. */
  long count(long second, int index) {
    return has(second) ? counts[Math.floorMod(second, SECONDS) * width + index] : 0L;
  }

  /** The number of counts a second. */
  int width() {
    return width;
  }
}
