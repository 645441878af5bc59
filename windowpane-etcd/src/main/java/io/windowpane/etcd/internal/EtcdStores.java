package io.windowpane.etcd.internal;

import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;

/** Makes the stores of one engine over its {@link Context}. */
public final class EtcdStores {

  private final Context ctx;

  public EtcdStores(Context ctx) {
    this.ctx = ctx;
  }

  public CounterStore counterStore(String name, WindowSpec spec) {
    return new EtcdCounterStore(ctx, name, spec);
  }

  public LimiterStore limiterStore(String name, Quota quota) {
    return new EtcdLimiterStore(ctx, name, quota);
  }

  /** {@code current} (a limiter store of this engine) over {@code quota}'s permits. */
  public LimiterStore reconfiguredLimiterStore(LimiterStore current, Quota quota) {
    return ((EtcdLimiterStore) current).withQuota(quota);
  }

  public StatsStore statsStore(String name, StatsSpec spec) {
    return new EtcdStatsStore(ctx, name, spec);
  }
}
