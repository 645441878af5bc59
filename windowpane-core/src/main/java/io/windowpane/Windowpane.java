package io.windowpane;

import io.windowpane.internal.Periodic;
import io.windowpane.internal.buffering.Buffers;
import io.windowpane.internal.leasing.LeasingLimiterStore;
import io.windowpane.internal.local.LocalEngine;
import io.windowpane.internal.observe.ObservedLimiterStore;
import io.windowpane.internal.lock.LockScheduler;
import io.windowpane.spi.Checks;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Engine;
import io.windowpane.spi.EngineObserver;
import io.windowpane.spi.GroupRequest;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.LockStore;
import io.windowpane.spi.StatsStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The entry point: an engine, and the counters and rate limiters built on it.
 *
 * <pre>{@code
 * Windowpane wp = Windowpane.local();
 * RateLimiter api = wp.limiter("api", Quota.of(
 *     Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10)),
 *     Limit.of(1_000, WindowSpec.panes(Duration.ofHours(1), 60))));
 * Decision d = api.tryAcquire("user:42", 1);
 * }</pre>
 *
 * <p>Statistics: {@code wp.stats("latency", StatsSpec.histogram(Duration.ofMinutes(1), 12))}
 * gives a {@link WindowStats}.
 *
 * <p>Per-window options live on the spec, set with {@code withX(...)}: top keys
 * ({@link WindowSpec#withTopKeys}, {@link Quota#withTopKeys}), buffering
 * ({@link WindowSpec#withBuffering}, {@link StatsSpec#withBuffering}), leasing
 * ({@link Quota#withLeasing}).
 *
 * <p>Locks: {@code wp.lock("nightly-report", LockOptions.defaults())} gives a
 * {@link DistributedLock} (see docs/locks.md).
 *
 * <p>Names namespace state: asking twice for the same name and shape returns the same object;
 * the same name with another shape is refused. Thread-safe. Closing closes the engine.
 */
public final class Windowpane implements AutoCloseable {

  private final Engine engine;
  private final EngineObserver observer;
  private final ConcurrentMap<String, Object> byName = new ConcurrentHashMap<>();
  private volatile LockScheduler lockScheduler; // started by the first lock
  private Periodic sweeper; // started by the first leasing limiter; guarded by leasing
  private final java.util.List<LeasingLimiterStore> leasing = new java.util.ArrayList<>();
  private final Buffers buffers = new Buffers();

  private Windowpane(Engine engine, EngineObserver observer) {
    this.engine = engine;
    this.observer = observer;
  }

  /** The in-process engine with the system clock and default bounds. */
  public static Windowpane local() {
    return localBuilder().build();
  }

  /** Options of the in-process engine: clock, key bound, sweep interval. */
  public static LocalBuilder localBuilder() {
    return new LocalBuilder();
  }

  /** Counters and limiters on any engine (Redis, etcd, or your own). */
  public static Windowpane using(Engine engine) {
    return new Windowpane(Checks.notNull("engine", engine), EngineObserver.NONE);
  }

  /**
   * Counters and limiters on {@code engine}, with each backend call and each rate-limit decision
   * reported to {@code observer}, for tracing (docs/observability.md): on a {@link Failover}
   * chain one call per member asked (a fallback's call says so), on another engine one call per
   * limiter operation. With {@link EngineObserver#NONE} this is {@link #using(Engine)}, and
   * costs nothing. Counters and statistics windows are not observed.
   */
  public static Windowpane using(Engine engine, EngineObserver observer) {
    Checks.notNull("engine", engine);
    Checks.notNull("observer", observer);
    if (observer != EngineObserver.NONE && engine instanceof Failover f) {
      f.observer(observer);
    }
    return new Windowpane(engine, observer);
  }

  /** The engine's limiter store, seen by the observer when there is one. */
  private LimiterStore observed(String name, LimiterStore store) {
    return observer == EngineObserver.NONE ? store : new ObservedLimiterStore(store, observer,
        name, engine instanceof Failover ? null : engine.name());
  }

  /**
   * A sliding-window counter named {@code name}. With {@link WindowSpec#withBuffering buffering}
   * on, it buffers this node's events per key and sends them in batches, answering from the
   * engine's last count while it is at most {@link Buffering#maxStaleness()} old
   * (docs/leasing.md, "Counters and statistics: buffering"); the engine's store is made for the
   * window without buffering. The same name with another spec (another buffering, or none,
   * included) is refused.
   */
  public WindowCounter counter(String name, WindowSpec spec) {
    return named("counter", name, "spec", spec, WindowCounter::spec, () -> {
      CounterStore store = engine.counterStore(name, spec.withoutBuffering());
      return new WindowCounter(name, spec, spec.buffering()
          .map(b -> buffers.counter(name, store, b)).orElse(store));
    });
  }

  /**
   * A rate limiter named {@code name} over {@code quota}; with {@link Quota#withLeasing leasing}
   * on, it answers hot keys from slices leased from the engine (docs/leasing.md).
   */
  public RateLimiter limiter(String name, Quota quota) {
    return named("limiter", name, "quota", quota, RateLimiter::quota,
        () -> {
          LimiterStore store = observed(name, engine.limiterStore(name, quota.withoutLeasing()));
          return new RateLimiter(name, quota, leased(name, quota, store), store);
        });
  }

  /**
   * Changes the permits of the limiter {@code name} while it runs: every {@link RateLimiter}
   * reference to it (and {@link #limiter(String, Quota)} from now on) decides against
   * {@code quota} from its next call. A call already started finishes under the old permits.
   *
   * <p>What happens to the state: <b>every key keeps its counts</b>, on every engine (local,
   * Redis, etcd, a failover chain, with or without leasing); only the permits they are compared
   * with change. A key over a lowered limit is denied until enough of its window has passed, with
   * the exact {@code retryAfter} of the new limit; a raised limit has room at once. With
   * {@link Quota#withLeasing leasing}, the slices this node leased under the old permits are
   * given back first (waiting at most 1 s for the engine), and new slices are sized from the new
   * permits. On a failover chain an in-process member's share of the new permits applies. An
   * exact log window on the local engine whose key was created under fewer permits than the new
   * ones holds at most as many distinct instants as it was made for: once full, its newest
   * entry takes the new events, which then count a little longer than {@code W} (stricter,
   * never looser) until the key's state expires.
   *
   * <p>Only permits may change (and the limits' names, e.g. the default {@code "10/1s"} that
   * follows them): the same number of limits, in the same order, over the same windows (length,
   * panes, algorithm), with the same top keys and leasing options. Other changes cannot keep the
   * counts (a window of another shape holds other state) and are refused: they take a new
   * limiter name, or a restart. The same quota as now changes nothing.
   *
   * @return the limiter, now over {@code quota}
   * @throws IllegalArgumentException if {@code name} names no limiter of this
   *     {@code Windowpane}, or {@code quota} changes more than permits and names (saying what);
   *     nothing changes
   */
  public RateLimiter reconfigure(String name, Quota quota) {
    Checks.name(name);
    Checks.notNull("quota", quota);
    Object made = byName.get("limiter:" + name);
    if (!(made instanceof RateLimiter limiter)) {
      throw new IllegalArgumentException("name '" + name + "' must name a limiter of this "
          + "Windowpane");
    }
    synchronized (limiter) {
      RateLimiter.Bound old = limiter.bound();
      if (old.quota().equals(quota)) {
        return limiter;
      }
      Reconfiguration.check(name, old.quota(), quota);
      LimiterStore store = observed(name, engine.reconfiguredLimiterStore(name,
          ObservedLimiterStore.unwrap(old.engineStore()), quota.withoutLeasing()));
      LimiterStore previous = old.store();
      if (previous instanceof LeasingLimiterStore leased) {
        synchronized (leasing) {
          leasing.remove(leased);
        }
        leased.close(); // gives this node's unspent slices back before new ones are sized
      }
      limiter.rebind(new RateLimiter.Bound(quota, leased(name, quota, store), store));
      return limiter;
    }
  }

  /** The engine's {@code store} for {@code quota}, under leasing when the quota asks for it. */
  private LimiterStore leased(String name, Quota quota, LimiterStore store) {
    if (quota.leasing().isEmpty()) {
      return store;
    }
    synchronized (leasing) {
      if (sweeper == null) {
        sweeper = new Periodic("windowpane-leasing");
      }
      LeasingLimiterStore leased = new LeasingLimiterStore(name, quota, store, sweeper);
      leasing.add(leased);
      return leased;
    }
  }

  /** A rate limiter over a quota of the given limits. */
  public RateLimiter limiter(String name, Limit first, Limit... more) {
    return limiter(name, Quota.of(first, more));
  }

  /** Most requests in one {@link #tryAcquireAllOrNothing} group. */
  public static final int MAX_GROUP = 64;

  /**
   * Takes every request's permits, or none: the group is allowed only when each request fits
   * its limiter's quota, and then all of them are recorded; when any does not fit, nothing stays
   * recorded and the answer is that request's denial (its limit, remaining and exact
   * {@code retryAfter}). For requests that must pass together, e.g. the descriptors of one
   * Envoy request, or a per-user and a per-tenant limit on different limiters.
   *
   * <pre>{@code
   * GroupDecision g = wp.tryAcquireAllOrNothing(List.of(
   *     perUser.request("user:42", 1), perTenant.request("acme", 1))).orElseThrow();
   * }</pre>
   *
   * <p>Guarantees (docs/guarantees.md):
   * <ul>
   *   <li>Never admits a group in part. The engine decides the group as a whole
   *       ({@link Engine#tryAcquireAllOrNothingAsync}): Redis in one atomic call where the
   *       keys can share one (always on one server; on a Cluster when they share a slot); a
   *       failover chain on one member, never split across two; otherwise the requests are
   *       leased one by one in a fixed order (limiter name, then key) and at the first denial
   *       every permit already taken is given back before the answer.
   *   <li>Leased one by one, it is not a transaction: while a denied group holds its first
   *       grants (an engine round trip each, then the give-back), a concurrent caller may be
   *       denied by them. This errs towards denying, never towards admitting more than a limit
   *       allows. A give-back that fails (backend down, timeout) is logged at WARNING
   *       ({@code io.windowpane.allornothing}) and does not change the answer: those permits
   *       stay counted until they leave the window, conservative again.
   *   <li>Requests for the same limiter and key are taken together, their permits summed.
   *   <li>A backend failure gives back what was taken, then throws the
   *       {@link WindowpaneException} (a failover chain first asks its next member).
   * </ul>
   *
   * <p>Empty when the engine cannot lease ({@link io.windowpane.spi.LimiterStore#lease};
   * docs/guarantees.md says which engines can), with nothing recorded: the caller chooses what
   * to do instead, e.g. deciding each request on its own. A group of one request is a plain
   * {@link RateLimiter#tryAcquire(String, long)} and answers on every engine.
   *
   * @param requests 1 to {@value #MAX_GROUP} requests on limiters of this {@code Windowpane}
   * @throws IllegalArgumentException if {@code requests} is null or empty or holds more than
   *     {@value #MAX_GROUP}, a null request or one on another {@code Windowpane}'s limiter, or
   *     requests for one limiter and key whose permits sum past its smallest limit; nothing is
   *     recorded
   */
  public Optional<GroupDecision> tryAcquireAllOrNothing(List<PermitRequest> requests) {
    try {
      return tryAcquireAllOrNothingAsync(requests).toCompletableFuture().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException) {
        throw (RuntimeException) e.getCause();
      }
      throw e;
    }
  }

  /**
   * {@link #tryAcquireAllOrNothing} without blocking the caller: the requests are leased one
   * after the other as each engine call completes. Bad arguments throw at once.
   */
  public CompletionStage<Optional<GroupDecision>> tryAcquireAllOrNothingAsync(
      List<PermitRequest> requests) {
    Checks.notNull("requests", requests);
    Checks.inRange("number of requests", requests.size(), 1, MAX_GROUP);
    List<GroupRequest> members = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      PermitRequest r = requests.get(i);
      if (r == null) {
        throw new IllegalArgumentException("requests[" + i + "] must not be null");
      }
      RateLimiter limiter = r.limiter();
      if (byName.get("limiter:" + limiter.name()) != limiter) {
        throw new IllegalArgumentException("requests[" + i + "].limiter '" + limiter.name()
            + "' must be a limiter of this Windowpane");
      }
      RateLimiter.Bound bound = limiter.bound();
      members.add(new GroupRequest(ObservedLimiterStore.unwrap(bound.engineStore()),
          limiter.name(), r.key(),
          r.permits(), bound.quota().smallestPermits()));
    }
    if (observer == EngineObserver.NONE || engine instanceof Failover) {
      return engine.tryAcquireAllOrNothingAsync(members); // a chain reports its member calls
    }
    return io.windowpane.internal.observe.Observing.call(observer, engine.name(),
        "tryAcquireAllOrNothing", () -> engine.tryAcquireAllOrNothingAsync(members));
  }

  /**
   * A statistics window named {@code name}: count, sum, mean, min, max, quantiles. With
   * {@link StatsSpec#withBuffering buffering} on, it buffers this node's values per key and
   * sends them in batches; a summary first sends this node's values for the key
   * (docs/leasing.md, "Counters and statistics: buffering"); the engine's store is made for the
   * window without buffering. The same name with another spec (another buffering, or none,
   * included) is refused.
   */
  public WindowStats stats(String name, StatsSpec spec) {
    return named("statistics window", name, "spec", spec, WindowStats::spec, () -> {
      StatsStore store = engine.statsStore(name, spec.withoutBuffering());
      return new WindowStats(name, spec, spec.buffering()
          .map(b -> buffers.stats(name, store, b)).orElse(store));
    });
  }

  /**
   * The distributed lock named {@code name} (1 to 64 characters of {@code [A-Za-z0-9_.:-]}):
   * every process whose engine uses the same backend shares it. Asking again with the same
   * options returns the same object; other options under the same name are refused (in this
   * process: other processes may use other options on the same lock).
   *
   * @throws UnsupportedOperationException if the engine has no locks
   */
  public DistributedLock lock(String name, LockOptions options) {
    return named("lock", name, "options", options, DistributedLock::options,
        () -> new DistributedLock(name, options, lockStore(), lockScheduler()));
  }

  /** {@link #lock(String, LockOptions)} with {@link LockOptions#defaults()}. */
  public DistributedLock lock(String name) {
    return lock(name, LockOptions.defaults());
  }

  private LockStore lockStore() {
    return engine.lockStore().orElseThrow(() -> new UnsupportedOperationException(
        "the " + engine.name() + " engine has no distributed locks"));
  }

  private LockScheduler lockScheduler() {
    LockScheduler s = lockScheduler;
    if (s == null) {
      synchronized (this) {
        s = lockScheduler;
        if (s == null) {
          s = new LockScheduler();
          lockScheduler = s;
        }
      }
    }
    return s;
  }

  /**
   * The {@code kind} named {@code name}, made on first use; the same name with another shape is
   * refused.
   */
  private <T, S> T named(String kind, String name, String shapeArgument, S shape,
      Function<T, S> shapeOf, Supplier<T> make) {
    Checks.name(name);
    Checks.notNull(shapeArgument, shape);
    @SuppressWarnings("unchecked")
    T made = (T) byName.computeIfAbsent(kind + ":" + name, k -> make.get());
    S existing = shapeOf.apply(made);
    if (!existing.equals(shape)) {
      throw new IllegalArgumentException("name '" + name + "' already names a " + kind
          + " over " + existing + ", not " + shape);
    }
    return made;
  }

  /** The engine's name: "local", "redis", "etcd", "failover". */
  public String engineName() {
    return engine.name();
  }

  /**
   * What the engine's memory guard last saw of its store's memory (the Redis engine's; a chain's
   * first member that has one), read without I/O; empty for engines without a guard.
   */
  public Optional<MemoryStatus> memoryStatus() {
    return engine.memoryStatus();
  }

  /**
   * The failover chain this {@code Windowpane} was built on, for its members' health and
   * counters ({@link Failover#status()}, {@link Failover#stats()}); empty for any other engine.
   */
  public Optional<Failover> failover() {
    return engine instanceof Failover f ? Optional.of(f) : Optional.empty();
  }

  /**
   * Whether the engine's backend answers now, for health checks: completes normally if it does,
   * exceptionally with a {@link WindowpaneException} if not, within the engine's timeouts. The
   * local engine always answers.
   */
  public CompletionStage<Void> probeAsync() {
    return engine.probe();
  }

  /**
   * Closes the engine and stops renewing held leases (they expire by their ttl; release them
   * first to free them at once). Buffering counters and statistics windows first send their
   * pending events (each call bounded by the engine's timeout). Leasing limiters first return their unspent slices (waiting
   * at most 1 s for the engine).
   */
  @Override
  public void close() {
    buffers.close();
    synchronized (leasing) {
      for (LeasingLimiterStore l : leasing) {
        l.close();
      }
      leasing.clear();
      if (sweeper != null) {
        sweeper.close();
        sweeper = null;
      }
    }
    try {
      LockScheduler s = lockScheduler;
      if (s != null) {
        s.close();
      }
    } finally {
      engine.close();
    }
  }

  /** Builds the in-process engine. */
  public static final class LocalBuilder {
    private MillisClock clock = MillisClock.system();
    private long maxKeys = LocalEngine.DEFAULT_MAX_KEYS;
    private long sweepIntervalMillis = LocalEngine.DEFAULT_SWEEP_INTERVAL_MILLIS;

    private LocalBuilder() {}

    /** The time source (default: the system clock); a {@link ManualClock} in tests. */
    public LocalBuilder clock(MillisClock clock) {
      this.clock = Checks.notNull("clock", clock);
      return this;
    }

    /**
     * The most keys each counter or limiter holds (default 1,000,000; 1 to 2^31 - 1). When a new
     * key would pass it, expired keys are dropped first; if every key is still live, the keys
     * idle longest are evicted (about 1/16 of the bound at once), forgetting their history.
     */
    public LocalBuilder maxKeys(long maxKeys) {
      this.maxKeys = Checks.inRange("maxKeys", maxKeys, 1, Integer.MAX_VALUE);
      return this;
    }

    /**
     * How often operations sweep expired keys out of memory (default 1 s; 1 ms to 1 day). An
     * expired key is never counted: the sweep only returns its memory.
     */
    public LocalBuilder sweepInterval(Duration interval) {
      Checks.notNull("interval", interval);
      this.sweepIntervalMillis = Checks.inRange("sweepInterval (ms)", interval.toMillis(), 1,
          86_400_000L);
      return this;
    }

    /** A new in-process engine. */
    public Windowpane build() {
      return new Windowpane(buildEngine(), EngineObserver.NONE);
    }

    /** A new in-process engine as an {@link Engine}, e.g. the last member of a {@link Failover}. */
    public Engine buildEngine() {
      return new LocalEngine(clock, maxKeys, sweepIntervalMillis);
    }
  }
}
