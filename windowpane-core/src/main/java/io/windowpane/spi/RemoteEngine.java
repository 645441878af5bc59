package io.windowpane.spi;

import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.WindowpaneException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/*
 * Design note. An engine over a remote backend is two things: a connection (a client, its
 * threads, a background task or two) and a factory of stores over that connection. The Redis
 * and etcd engines each wrote the same wiring around their factory: a name, four store methods
 * handing their arguments on, one lock store for every lock name, and a close that lets go of
 * what the engine holds. This class is that wiring once. What an engine adds (its probe, its
 * replays, its group decisions, its failover timeout, its builder) stays in the engine, where
 * its documentation belongs. Buffering, hot-key leasing and top keys are not an engine's
 * concern: Windowpane wraps every engine's stores in them alike.
 */

/**
 * A base for an engine over a remote backend: a name, the stores made by one {@link Stores}
 * factory, locks, and a {@link #close()} that closes what the engine holds, in order. Subclasses
 * add the backend's probe, replays and options. Thread-safe if the factory is.
 */
public abstract class RemoteEngine implements Engine {

  /** Makes a remote engine's stores over its connection. Thread-safe. */
  public interface Stores {

    /** As {@link Engine#counterStore}. */
    CounterStore counterStore(String name, WindowSpec spec);

    /** As {@link Engine#limiterStore}. */
    LimiterStore limiterStore(String name, Quota quota);

    /** As {@link Engine#reconfiguredLimiterStore}, whose default it shares. */
    default LimiterStore reconfiguredLimiterStore(String name, LimiterStore current,
        Quota quota) {
      return limiterStore(name, quota);
    }

    /** As {@link Engine#statsStore}. */
    StatsStore statsStore(String name, StatsSpec spec);

    /** The one store of every lock of the engine. */
    LockStore lockStore();
  }

  private final String name;
  private final Stores stores;
  private final List<AutoCloseable> resources;

  /**
   * @param name the engine's name ({@link Engine#name()})
   * @param stores makes the stores
   * @param resources what {@link #close()} closes, in this order (null entries are skipped)
   */
  protected RemoteEngine(String name, Stores stores, AutoCloseable... resources) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("name must be non-empty, e.g. redis");
    }
    if (stores == null) {
      throw new IllegalArgumentException("stores must not be null");
    }
    this.name = name;
    this.stores = stores;
    this.resources = new ArrayList<>();
    for (AutoCloseable r : resources) {
      if (r != null) {
        this.resources.add(r);
      }
    }
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final CounterStore counterStore(String name, WindowSpec spec) {
    return stores.counterStore(name, spec);
  }

  @Override
  public final LimiterStore limiterStore(String name, Quota quota) {
    return stores.limiterStore(name, quota);
  }

  @Override
  public final LimiterStore reconfiguredLimiterStore(String name, LimiterStore current,
      Quota quota) {
    return stores.reconfiguredLimiterStore(name, current, quota);
  }

  @Override
  public final StatsStore statsStore(String name, StatsSpec spec) {
    return stores.statsStore(name, spec);
  }

  @Override
  public final Optional<LockStore> lockStore() {
    return Optional.of(stores.lockStore());
  }

  /**
   * Closes what the engine holds, in the order given, each one even when one before it failed;
   * the first failure is then thrown as a {@link WindowpaneException}, the others suppressed in
   * it.
   */
  @Override
  public void close() {
    WindowpaneException failure = null;
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new WindowpaneException(name + ": closing failed: " + e, e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
