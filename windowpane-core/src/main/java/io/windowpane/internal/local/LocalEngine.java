package io.windowpane.internal.local;

import io.windowpane.Algorithm;
import io.windowpane.Limit;
import io.windowpane.MillisClock;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.internal.topkeys.TopKeysRing;
import java.util.Optional;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Engine;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.LockStore;
import io.windowpane.spi.StatsStore;

/**
 * The in-process engine: lock-free pane rings and logs in a bounded table per counter,
 * limiter or statistics window. The reference semantics of windowpane, and its fastest path. Nothing to close.
 */
public final class LocalEngine implements Engine {

  /** Default bound on the keys of each counter or limiter. */
  public static final long DEFAULT_MAX_KEYS = 1_000_000;

  /** Default interval between sweeps of expired keys. */
  public static final long DEFAULT_SWEEP_INTERVAL_MILLIS = 1_000;

  private final MillisClock clock;
  private final long maxKeys;
  private final long sweepIntervalMillis;
  private final LockStore locks;

  public LocalEngine(MillisClock clock, long maxKeys, long sweepIntervalMillis) {
    this.clock = clock;
    this.maxKeys = maxKeys;
    this.sweepIntervalMillis = sweepIntervalMillis;
    this.locks = new LocalLockStore(clock);
  }

  @Override
  public String name() {
    return "local";
  }

  @Override
  public CounterStore counterStore(String name, WindowSpec spec) {
    KeyTable table = new KeyTable(
        now -> new KeyState(new Window[] {window(spec, -1, now)}, now),
        spec.expiryMillis(), maxKeys, sweepIntervalMillis, clock.millis());
    LocalCounterStore store = new LocalCounterStore(clock, table, spec);
    if (spec.topKeys() == 0) {
      return store;
    }
    return new TopKeysStores.Counter(store, clock, new TopKeysRing(spec, spec.topKeys()));
  }

  @Override
  public LimiterStore limiterStore(String name, Quota quota) {
    LocalLimiterStore.Sizing sizing = new LocalLimiterStore.Sizing(quota);
    KeyTable table = new KeyTable(now -> {
      Quota q = sizing.quota;
      Window[] windows = new Window[q.limits().size()];
      for (int i = 0; i < windows.length; i++) {
        Limit limit = q.limits().get(i);
        windows[i] = window(limit.window(), limit.permits(), now);
      }
      return new LocalLimiterStore.State(windows, now);
    }, quota.expiryMillis(), maxKeys, sweepIntervalMillis, clock.millis());
    LocalLimiterStore store = new LocalLimiterStore(clock, table, quota, sizing);
    if (quota.topKeys() == 0) {
      return store;
    }
    WindowSpec first = quota.limits().get(0).window();
    return new TopKeysStores.Limiter(store, clock, new TopKeysRing(first, quota.topKeys()),
        new TopKeysRing(first, quota.topKeys()));
  }

  /**
   * The same key table (and top-keys sketches) decided against the new permits: every key keeps
   * its windows and counts.
   */
  @Override
  public LimiterStore reconfiguredLimiterStore(String name, LimiterStore current, Quota quota) {
    if (current instanceof TopKeysStores.Limiter top) {
      return top.withQuota(quota);
    }
    return ((LocalLimiterStore) current).withQuota(quota);
  }

  /** True: each process counts only its own events. */
  @Override
  public boolean inProcess() {
    return true;
  }

  @Override
  public StatsStore statsStore(String name, StatsSpec spec) {
    WindowSpec window = spec.window();
    KeyTable table = new KeyTable(now -> new StatsState(spec.isExact()
        ? new ExactValues(window.windowMillis(), spec.maxValues(), name)
        : new HistogramRing(window.resolutionMillis(), window.panes(), spec.buckets()), now),
        spec.expiryMillis(), maxKeys, sweepIntervalMillis, clock.millis());
    LocalStatsStore store = new LocalStatsStore(clock, table, spec);
    if (spec.topKeys() == 0) {
      return store;
    }
    return new TopKeysStores.Stats(store, clock, new TopKeysRing(window, spec.topKeys()));
  }

  /** Locks within this process, expiring by the engine's clock. */
  @Override
  public Optional<LockStore> lockStore() {
    return Optional.of(locks);
  }

  /** A fresh window; {@code limit} is -1 for a counter. */
  static Window window(WindowSpec spec, long limit, long now) {
    Algorithm algorithm = spec.algorithm();
    switch (algorithm) {
      case SLIDING_LOG:
        return limit < 0 ? LogWindow.forCounter(spec.windowMillis(), now)
            : LogWindow.forLimit(spec.windowMillis(), limit, now);
      case SLIDING_WEIGHTED:
        return limit < 0 ? PaneWindow.weighted(spec.windowMillis(), now)
            : PaneWindow.weighted(spec.windowMillis(), limit, now);
      default:
        return limit < 0 ? PaneWindow.panes(spec.resolutionMillis(), spec.panes(), now)
            : PaneWindow.panes(spec.resolutionMillis(), spec.panes(), limit, now);
    }
  }

  @Override
  public void close() {
    // nothing held outside the heap
  }
}
