package io.windowpane.testkit.engines;

import io.windowpane.Decision;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Engine;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * An engine whose limiters cannot lease ({@code LimiterStore.lease} answers empty: the SPI's
 * default), over another engine: for testing what callers do on such an engine (an engine
 * written before leasing). Everything else is the wrapped engine's.
 */
public final class WithoutLeases implements Engine {

  private final Engine engine;

  private WithoutLeases(Engine engine) {
    this.engine = engine;
  }

  /** {@code engine}, with limiters that cannot lease. */
  public static Engine wrap(Engine engine) {
    return new WithoutLeases(engine);
  }

  @Override
  public String name() {
    return engine.name();
  }

  @Override
  public CounterStore counterStore(String name, WindowSpec spec) {
    return engine.counterStore(name, spec);
  }

  @Override
  public LimiterStore limiterStore(String name, Quota quota) {
    LimiterStore store = engine.limiterStore(name, quota);
    return new LimiterStore() {
      @Override
      public Decision tryAcquire(String key, long permits) {
        return store.tryAcquire(key, permits);
      }

      @Override
      public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
        return store.tryAcquireAsync(key, permits);
      }

      @Override
      public boolean holdsState(String key) {
        return store.holdsState(key);
      }

      @Override
      public Optional<Decision> peek(String key, long permits) {
        return store.peek(key, permits);
      }
    };
  }

  @Override
  public StatsStore statsStore(String name, StatsSpec spec) {
    return engine.statsStore(name, spec);
  }

  @Override
  public boolean inProcess() {
    return engine.inProcess();
  }

  @Override
  public void close() {
    engine.close();
  }
}
