package io.windowpane.spi;

import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.WindowpaneException;
import io.windowpane.internal.deferred.DeferredStores;
import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/*
 * Design note. A member of a failover chain must exist before its backend answers: a pod that
 * starts during a Redis outage still needs a limiter, and the chain is what gives it one. This
 * engine stands for a backend engine that may not be connected yet:
 *
 *   - At construction it tries to connect once, on the caller's thread (bounded by the engine's
 *     own connect timeout), so a healthy backend is used from the first call.
 *   - If that fails, it logs once and keeps trying on its own daemon thread, the pause doubling
 *     from RETRY_MIN_MILLIS to RETRY_MAX_MILLIS (an attempt against a refused local port costs
 *     a refused connect and a client torn down), until it connects or is closed.
 *   - Its stores exist at once: each is a small proxy that resolves to the real engine's store
 *     on first use after the connection, and until then fails every call with a
 *     WindowpaneException ("not connected"), which a chain counts like any backend failure.
 *     A chain starts such a member DOWN and recovers it by its usual rules (probes in a row,
 *     then the replay of what its fallbacks took meanwhile).
 *
 * What must be known before the backend answers is given by the caller: the name, whether the
 * engine takes replays (the chain plans its journal from it) and whether it has locks.
 */

/**
 * An {@link Engine} that connects to its backend now if it can, and in the background until it
 * does if not: the form of a remote engine for a member of a {@link io.windowpane.Failover}
 * chain that must start while its backend is down ({@code RedisEngine.Builder.buildDeferred()},
 * {@code EtcdEngine.Builder.buildDeferred()}). A chain starts a member that is not connected
 * {@code DOWN}, and it joins by the chain's recovery rules once it answers.
 *
 * <p>Until connected, every store call fails with a {@link WindowpaneException} saying so and
 * {@link #probe()} fails. Once connected it behaves as the engine {@code connect} built, with
 * one volatile read more per call. Thread-safe.
 */
public final class DeferredEngine implements Engine {

  private static final System.Logger LOG = System.getLogger("io.windowpane.engine");

  /** The first pause between two attempts to connect. */
  static final long RETRY_MIN_MILLIS = 100;
  /** The longest pause between two attempts to connect. */
  static final long RETRY_MAX_MILLIS = 500;

  private final String name;
  private final boolean replays;
  private final boolean locks;
  private final java.time.Duration failoverTimeout;
  private final Supplier<? extends Engine> connect;
  private final Object lock = new Object();
  private volatile Engine engine;
  private volatile String lastFailure = "";
  private volatile boolean closed;
  private ScheduledThreadPoolExecutor retries; // guarded by lock
  private long attempts; // guarded by lock

  private DeferredEngine(String name, boolean replays, boolean locks,
      java.time.Duration failoverTimeout, Supplier<? extends Engine> connect) {
    this.failoverTimeout = failoverTimeout;
    this.name = name;
    this.replays = replays;
    this.locks = locks;
    this.connect = connect;
  }

  /**
   * An engine named {@code name} that {@code connect} builds: tried now, and in the background
   * until it succeeds. {@code replays} and {@code locks} say what the built engine will answer
   * to {@link Engine#replays()} and whether it has a {@link Engine#lockStore()}. An
   * {@link IllegalArgumentException} or {@link IllegalStateException} from the first attempt
   * (bad options, not an unreachable backend) is thrown at once.
   */
  public static DeferredEngine connecting(String name, boolean replays, boolean locks,
      Supplier<? extends Engine> connect) {
    return connecting(name, replays, locks, java.time.Duration.ofMillis(100), connect);
  }

  /**
   * {@link #connecting(String, boolean, boolean, Supplier)} for an engine whose
   * {@link Engine#failoverTimeout()} is {@code failoverTimeout}.
   */
  public static DeferredEngine connecting(String name, boolean replays, boolean locks,
      java.time.Duration failoverTimeout, Supplier<? extends Engine> connect) {
    Checks.notNull("name", name);
    Checks.notNull("failoverTimeout", failoverTimeout);
    Checks.notNull("connect", connect);
    DeferredEngine e = new DeferredEngine(name, replays, locks, failoverTimeout, connect);
    if (!e.attempt(true)) {
      LOG.log(Level.DEBUG, "{0}: {1}; starting without it and connecting in the background",
          name, e.lastFailure);
      e.scheduleRetry(RETRY_MIN_MILLIS);
    }
    return e;
  }

  /** Whether the backend has been reached; once true, stays true. */
  public boolean connected() {
    return engine != null;
  }

  /** The engine once connected. */
  public Optional<Engine> engine() {
    return Optional.ofNullable(engine);
  }

  /** Why the last attempt to connect failed ("" when none has). */
  public String lastFailure() {
    return lastFailure;
  }

  /** The connected engine, or a {@link WindowpaneException} saying it is not connected. */
  public Engine connectedOrThrow() {
    Engine e = engine;
    if (e == null) {
      throw notConnected();
    }
    return e;
  }

  private WindowpaneException notConnected() {
    return new WindowpaneException(name + " is not connected yet"
        + (lastFailure.isEmpty() ? "" : " (" + lastFailure + ")"));
  }

  private boolean attempt(boolean first) {
    try {
      Engine built = connect.get();
      synchronized (lock) {
        if (closed) {
          built.close();
          return true;
        }
        engine = built;
        attempts++;
      }
      return true;
    } catch (RuntimeException e) {
      if (first && (e instanceof IllegalArgumentException || e instanceof IllegalStateException)) {
        throw e;
      }
      synchronized (lock) {
        attempts++;
      }
      lastFailure = String.valueOf(e.getMessage() != null ? e.getMessage() : e);
      return false;
    }
  }

  private void scheduleRetry(long pauseMillis) {
    synchronized (lock) {
      if (closed) {
        return;
      }
      if (retries == null) {
        retries = new ScheduledThreadPoolExecutor(1, r -> {
          Thread t = new Thread(r, "windowpane-connect-" + name);
          t.setDaemon(true);
          return t;
        });
      }
      retries.schedule(() -> {
        if (closed) {
          return;
        }
        if (attempt(false)) {
          long n;
          synchronized (lock) {
            n = attempts;
            retries.shutdown();
          }
          LOG.log(Level.INFO, "{0}: connected after {1} attempts", name, n);
        } else {
          LOG.log(Level.DEBUG, "{0}: still not connected: {1}", name, lastFailure);
          scheduleRetry(Math.min(RETRY_MAX_MILLIS, pauseMillis * 2));
        }
      }, pauseMillis, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public CounterStore counterStore(String storeName, WindowSpec spec) {
    return DeferredStores.counter(this, e -> e.counterStore(storeName, spec));
  }

  @Override
  public LimiterStore limiterStore(String storeName, Quota quota) {
    return DeferredStores.limiter(this, e -> e.limiterStore(storeName, quota));
  }

  /**
   * A store that, once the engine is connected, is the connected engine's reconfiguration of
   * {@code current}'s store (built then if it was not yet).
   */
  @Override
  public LimiterStore reconfiguredLimiterStore(String storeName, LimiterStore current,
      Quota quota) {
    return DeferredStores.reconfigured(this, current,
        (e, old) -> e.reconfiguredLimiterStore(storeName, old, quota));
  }

  @Override
  public StatsStore statsStore(String storeName, StatsSpec spec) {
    return DeferredStores.stats(this, e -> e.statsStore(storeName, spec));
  }

  @Override
  public Optional<LockStore> lockStore() {
    return locks ? Optional.of(DeferredStores.locks(this)) : Optional.empty();
  }

  /** The engine's memory status once connected; empty until then. */
  @Override
  public Optional<io.windowpane.MemoryStatus> memoryStatus() {
    Engine e = engine;
    return e != null ? e.memoryStatus() : Optional.empty();
  }

  /** The engine's probe once connected; fails until then. */
  @Override
  public CompletionStage<Void> probe() {
    Engine e = engine;
    return e != null ? e.probe() : CompletableFuture.failedFuture(notConnected());
  }

  @Override
  public boolean replays() {
    return replays;
  }

  /**
   * The connected engine's own group decision over its own stores (on Redis one atomic call where
   * the keys share one); fails until connected.
   */
  @Override
  public CompletionStage<Optional<io.windowpane.GroupDecision>> tryAcquireAllOrNothingAsync(
      java.util.List<GroupRequest> requests) {
    Engine e = engine;
    if (e == null) {
      return CompletableFuture.failedFuture(notConnected());
    }
    java.util.List<GroupRequest> own = new java.util.ArrayList<>(requests.size());
    try {
      for (GroupRequest r : requests) {
        own.add(new GroupRequest(DeferredStores.target(r.store()), r.limiter(), r.key(),
            r.permits(), r.maxPermits()));
      }
    } catch (RuntimeException x) {
      return CompletableFuture.failedFuture(x);
    }
    return e.tryAcquireAllOrNothingAsync(own);
  }

  @Override
  public java.time.Duration failoverTimeout() {
    return failoverTimeout;
  }

  /** Stops connecting and closes the engine if it was built. */
  @Override
  public void close() {
    Engine e;
    synchronized (lock) {
      closed = true;
      if (retries != null) {
        retries.shutdownNow();
      }
      e = engine;
    }
    if (e != null) {
      e.close();
    }
  }

  @Override
  public String toString() {
    Engine e = engine;
    return "DeferredEngine[" + name + (e != null ? ", connected" : ", not connected") + "]";
  }
}
