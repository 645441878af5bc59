package io.windowpane.internal.observe;

import io.windowpane.Decision;
import io.windowpane.TopKey;
import io.windowpane.spi.EngineObserver;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.ReplayBatch;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/*
 * An engine's limiter store as an EngineObserver sees it. Only built when a Windowpane has an
 * observer other than NONE: without one the limiter talks to the engine's store directly, and
 * the hot path has no check at all (the benchmark ObserverBenchmark measures both).
 *
 * Decisions (tryAcquire, tryConsume, tryAcquireAll and their async forms) are reported to
 * decided() once each. On a single engine (ownCalls) each of them, and each lease, is also one
 * backend call under the engine's name; on a failover chain the chain's router reports a call
 * per member asked instead (one decision, then, may be two calls: the primary's failure and the
 * fallback's answer). Everything else passes through unobserved.
 *
 * The caller's context (EngineObserver.parent) is read on the calling thread before the store
 * is asked, so a decision completed on an I/O thread still reports under the caller's span.
 */
public final class ObservedLimiterStore implements LimiterStore {

  private final LimiterStore store;
  private final EngineObserver observer;
  private final String limiter;
  private final String engine; // null on a chain: its router reports member calls

  /**
   * {@code store} of limiter {@code limiter} seen by {@code observer}; {@code engine} names the
   * single engine whose calls this store reports, or is null for a failover chain's store.
   */
  public ObservedLimiterStore(LimiterStore store, EngineObserver observer, String limiter,
      String engine) {
    this.store = store;
    this.observer = observer;
    this.limiter = limiter;
    this.engine = engine;
  }

  /** The engine's store underneath. */
  public LimiterStore unwrap() {
    return store;
  }

  /** {@code store} without its observing wrapper, if it has one. */
  public static LimiterStore unwrap(LimiterStore store) {
    return store instanceof ObservedLimiterStore o ? o.store : store;
  }

  private Object start(Object parent, String operation) {
    return engine == null ? null : Observing.started(observer, parent, engine, operation, false);
  }

  private void end(Object call, Throwable failure) {
    if (engine != null) {
      Observing.ended(observer, call, failure);
    }
  }

  @Override
  public Decision tryAcquire(String key, long permits) {
    Object parent = Observing.parent(observer);
    Object call = start(parent, "tryAcquire");
    Decision d;
    try {
      d = store.tryAcquire(key, permits);
    } catch (RuntimeException e) {
      end(call, e);
      throw e;
    }
    end(call, null);
    Observing.decided(observer, parent, limiter, d);
    return d;
  }

  /** Observed, so it takes the {@link Decision} path: a decision's outcome is what is seen. */
  @Override
  public boolean tryConsume(String key, long permits) {
    return tryAcquire(key, permits).allowed();
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
    Object parent = Observing.parent(observer);
    Object call = start(parent, "tryAcquire");
    return observed(call, () -> store.tryAcquireAsync(key, permits)).whenComplete((d, e) -> {
      end(call, e);
      if (e == null) {
        Observing.decided(observer, parent, limiter, d);
      }
    });
  }

  @Override
  public List<Decision> tryAcquireAll(List<String> keys, long permits) {
    Object parent = Observing.parent(observer);
    Object call = start(parent, "tryAcquireAll");
    List<Decision> all;
    try {
      all = store.tryAcquireAll(keys, permits);
    } catch (RuntimeException e) {
      end(call, e);
      throw e;
    }
    end(call, null);
    all.forEach(d -> Observing.decided(observer, parent, limiter, d));
    return all;
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<String> keys, long permits) {
    Object parent = Observing.parent(observer);
    Object call = start(parent, "tryAcquireAll");
    return observed(call, () -> store.tryAcquireAllAsync(keys, permits)).whenComplete((all, e) -> {
      end(call, e);
      if (e == null) {
        all.forEach(d -> Observing.decided(observer, parent, limiter, d));
      }
    });
  }

  @Override
  public Optional<Grant> lease(String key, long minPermits, long maxPermits) {
    Object call = start(Observing.parent(observer), "lease");
    Optional<Grant> g;
    try {
      g = store.lease(key, minPermits, maxPermits);
    } catch (RuntimeException e) {
      end(call, e);
      throw e;
    }
    end(call, null);
    return g;
  }

  @Override
  public CompletionStage<Optional<Grant>> leaseAsync(String key, long minPermits,
      long maxPermits) {
    Object call = start(Observing.parent(observer), "lease");
    return observed(call, () -> store.leaseAsync(key, minPermits, maxPermits))
        .whenComplete((g, e) -> end(call, e));
  }

  /** The stage {@code op} returns, or a failed one if it threw (the call is then ended). */
  private <T> CompletionStage<T> observed(Object call,
      java.util.function.Supplier<CompletionStage<T>> op) {
    try {
      return op.get();
    } catch (RuntimeException e) {
      end(call, e);
      throw e;
    }
  }

  @Override
  public boolean holdsState(String key) {
    return store.holdsState(key);
  }

  @Override
  public void cleanUp() {
    store.cleanUp();
  }

  @Override
  public Optional<Decision> peek(String key, long permits) {
    return store.peek(key, permits);
  }

  @Override
  public CompletionStage<Optional<Decision>> peekAsync(String key, long permits) {
    return store.peekAsync(key, permits);
  }

  @Override
  public Optional<List<TopKey>> topKeys(int n, boolean denied) {
    return store.topKeys(n, denied);
  }

  @Override
  public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
      String releaseId) {
    return store.releaseAsync(key, permits, atMillis, releaseId);
  }

  @Override
  public CompletionStage<Void> releaseAsync(String key, long permits, Grant grant,
      String releaseId) {
    return store.releaseAsync(key, permits, grant, releaseId);
  }

  @Override
  public CompletionStage<Void> replayAllAsync(List<ReplayBatch> batches) {
    return store.replayAllAsync(batches);
  }

  @Override
  public CompletionStage<Void> replayAsync(String key, long permits, long atMillis,
      String replayId) {
    return store.replayAsync(key, permits, atMillis, replayId);
  }

  @Override
  public String toString() {
    return "Observed" + store;
  }
}
