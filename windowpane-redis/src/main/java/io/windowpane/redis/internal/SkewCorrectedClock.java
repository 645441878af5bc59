package io.windowpane.redis.internal;

import io.windowpane.MillisClock;
import java.util.concurrent.TimeUnit;

/*
 * Design note. For servers that forbid TIME in scripts, the engine passes the client's time,
 * corrected by the offset between the server's clock and the local one. The offset is measured
 * like NTP's: read the local clock, ask TIME, read it again; the server read its clock somewhere
 * in between, so offset = server - (before + after) / 2 with an error of at most half the round
 * trip. Of the samples in one round of measurement the one with the shortest round trip wins;
 * rounds repeat every period, so drift between the machines is followed. Until the first
 * measurement the offset is 0.
 */

/** The local clock corrected by the measured offset to the Redis server's clock. */
public final class SkewCorrectedClock implements MillisClock {

  private static final int SAMPLES = 5;

  private final MillisClock local;
  private final RedisSeam seam;
  private volatile long offsetMillis;

  public SkewCorrectedClock(MillisClock local, RedisSeam seam) {
    this.local = local;
    this.seam = seam;
  }

  @Override
  public long millis() {
    return local.millis() + offsetMillis;
  }

  /** The last measured offset, server minus local, in ms. */
  public long offsetMillis() {
    return offsetMillis;
  }

  /** Takes a round of samples (blocking, at most a few round trips) and updates the offset. */
  public void measure() {
    long bestRtt = Long.MAX_VALUE;
    long bestOffset = 0;
    for (int i = 0; i < SAMPLES; i++) {
      long startNanos = System.nanoTime();
      long before = local.millis();
      long server;
      try {
        server = seam.serverMillis().get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        return; // keep the last offset; the next round tries again
      }
      long after = local.millis();
      long rtt = System.nanoTime() - startNanos;
      if (rtt < bestRtt) {
        bestRtt = rtt;
        bestOffset = server - Math.floorDiv(before + after, 2);
      }
    }
    offsetMillis = bestOffset;
  }
}
