package io.windowpane.bench;

import java.util.ArrayDeque;

/**
 * The sliding log people write by hand: a synchronized method over an {@code ArrayDeque<Long>}
 * of event times. Exact, like windowpane's {@code SLIDING_LOG}, but every call, allowed or
 * denied, takes one monitor, and every allowed call boxes a {@code Long} (times beyond the
 * small-value cache) and keeps it until it leaves the window. Memory is O(limit) per key.
 */
final class NaiveSlidingLog implements Decider {

  private final ArrayDeque<Long> times = new ArrayDeque<>();
  private final long limit;
  private final long windowMillis;

  NaiveSlidingLog(long limit, long windowMillis) {
    this.limit = limit;
    this.windowMillis = windowMillis;
  }

  @Override
  public synchronized boolean decide() {
    long now = System.currentTimeMillis();
    long cutoff = now - windowMillis; // events at or before the cutoff have left the window
    Long oldest;
    while ((oldest = times.peekFirst()) != null && oldest <= cutoff) {
      times.pollFirst();
    }
    if (times.size() < limit) {
      times.addLast(now);
      return true;
    }
    return false;
  }
}
