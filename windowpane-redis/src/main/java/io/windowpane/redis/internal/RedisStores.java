package io.windowpane.redis.internal;

import io.windowpane.GroupDecision;
import io.windowpane.MillisClock;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.GroupRequest;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.LockStore;
import io.windowpane.spi.RemoteEngine;
import io.windowpane.spi.StatsStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** Makes the engine's stores over one seam and one time source. */
public final class RedisStores implements RemoteEngine.Stores {

  private final RedisSeam seam;
  private final TimeArg time;
  private final long guardMillis;
  private final RedisLockStore locks;
  private final boolean coalescing;

  /**
   * @param guardMillis the longest a blocking call waits for its future (the client's own
   *     timeout normally completes it much sooner)
   * @param leaseClock the clock by which lock holders measure their leases: the time argument's
   *     clock with client time, a monotonic clock with the server's
   */
  public RedisStores(RedisSeam seam, TimeArg time, long guardMillis, MillisClock leaseClock) {
    this(seam, time, guardMillis, leaseClock, true);
  }

  /**
   * Stores over the functions. With {@code coalescing}, concurrent decisions and adds of one store bound for one node go
   * out as batch calls ({@link Coalescer}).
   */
  public RedisStores(RedisSeam seam, TimeArg time, long guardMillis, MillisClock leaseClock,
      boolean coalescing) {
    this.coalescing = coalescing;
    this.seam = seam;
    this.time = time;
    this.guardMillis = guardMillis;
    this.locks = new RedisLockStore(seam, time, leaseClock);
  }

  /**
   * The engine's locks (one store for every lock name): {@code wp_lock}, {@code wp_renew},
   * {@code wp_unlock} (docs/locks.md).
   */
  @Override
  public LockStore lockStore() {
    return locks;
  }

  @Override
  public CounterStore counterStore(String name, WindowSpec spec) {
    return new RedisCounterStore(seam, time, guardMillis, name, spec, coalescing);
  }

  @Override
  public LimiterStore limiterStore(String name, Quota quota) {
    return new RedisLimiterStore(seam, time, guardMillis, name, quota, coalescing);
  }

  /**
   * An all-or-nothing group: one call of {@code wp_group} where its keys can share one call
   * ({@link Groups}), else the ordered leases of {@code AllOrNothing}.
   */
  public CompletionStage<Optional<GroupDecision>> tryAcquireAllOrNothingAsync(
      List<GroupRequest> requests) {
    return Groups.acquire(seam, time, requests);
  }

  @Override
  public StatsStore statsStore(String name, StatsSpec spec) {
    return new RedisStatsStore(seam, time, guardMillis, name, spec);
  }
}
