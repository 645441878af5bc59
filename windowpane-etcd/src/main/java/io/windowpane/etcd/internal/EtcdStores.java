package io.windowpane.etcd.internal;

import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.LockStore;
import io.windowpane.spi.RemoteEngine;
import io.windowpane.spi.StatsStore;

/** Makes the stores of one engine over its {@link Context}. */
public final class EtcdStores implements RemoteEngine.Stores {

  private final Context ctx;
  private final EtcdLockStore locks;

  public EtcdStores(Context ctx) {
    this.ctx = ctx;
    this.locks = new EtcdLockStore(ctx);
  }

  @Override
  public CounterStore counterStore(String name, WindowSpec spec) {
    return new EtcdCounterStore(ctx, name, spec);
  }

  @Override
  public LimiterStore limiterStore(String name, Quota quota) {
    return new EtcdLimiterStore(ctx, name, quota);
  }

  /**
   * The same etcd keys decided against the new permits: {@code current} (a limiter store of
   * this engine) over {@code quota}'s permits. A limiter's keys are named by the permits it was
   * created with, so a reconfigured limiter keeps that name while it runs; a process started
   * with the new permits uses keys of their own.
   */
  @Override
  public LimiterStore reconfiguredLimiterStore(String name, LimiterStore current, Quota quota) {
    return ((EtcdLimiterStore) current).withQuota(quota);
  }

  @Override
  public StatsStore statsStore(String name, StatsSpec spec) {
    return new EtcdStatsStore(ctx, name, spec);
  }

  /**
   * Locks: one key per lock under {@code <namespace>/lock/}, taken, renewed and released by
   * compare-and-swap on its mod revision; the fencing token is the etcd revision of the write
   * that took the lock. Expiry follows the engine's clock like every other answer. See
   * {@code docs/locks.md}.
   */
  @Override
  public LockStore lockStore() {
    return locks;
  }
}
