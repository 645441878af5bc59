package io.windowpane.redis.internal;

import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;

/** Makes the engine's stores over one seam and one time source. */
public final class RedisStores {

  private final RedisSeam seam;
  private final TimeArg time;
  private final long guardMillis;

  /**
   * @param guardMillis the longest a blocking call waits for its future (the client's own
   *     timeout normally completes it much sooner)
   */
  public RedisStores(RedisSeam seam, TimeArg time, long guardMillis) {
    this.seam = seam;
    this.time = time;
    this.guardMillis = guardMillis;
  }

  public CounterStore counterStore(String name, WindowSpec spec) {
    return new RedisCounterStore(seam, time, guardMillis, name, spec);
  }

  public LimiterStore limiterStore(String name, Quota quota) {
    return new RedisLimiterStore(seam, time, guardMillis, name, quota);
  }

  public StatsStore statsStore(String name, StatsSpec spec) {
    return new RedisStatsStore(seam, time, guardMillis, name, spec);
  }
}
