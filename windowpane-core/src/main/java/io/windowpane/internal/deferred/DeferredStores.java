package io.windowpane.internal.deferred;

import io.windowpane.Decision;
import io.windowpane.MillisClock;
import io.windowpane.Summary;
import io.windowpane.TopKey;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.DeferredEngine;
import io.windowpane.spi.Engine;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.LockStore;
import io.windowpane.spi.ReplayBatch;
import io.windowpane.spi.StatsStore;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/*
 * The stores of a DeferredEngine: each resolves to the connected engine's store on first use
 * (once, under its own monitor; then one volatile read a call) and fails every call while the
 * engine is not connected, blocking calls by throwing, async ones with a failed stage.
 */
public final class DeferredStores {

  private DeferredStores() {}

  /** The store a proxy stands for, built once the engine is connected. */
  static final class Target<S> {
    private final DeferredEngine owner;
    private final Function<Engine, S> make;
    private volatile S store;

    Target(DeferredEngine owner, Function<Engine, S> make) {
      this.owner = owner;
      this.make = make;
    }

    S get() {
      S s = store;
      if (s == null) {
        synchronized (this) {
          s = store;
          if (s == null) {
            s = make.apply(owner.connectedOrThrow());
            store = s;
          }
        }
      }
      return s;
    }

    <T> CompletionStage<T> async(Function<S, CompletionStage<T>> call) {
      try {
        return call.apply(get());
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    /** The store if it is already built; a connected engine builds it. */
    Optional<S> ifConnected() {
      if (store == null && !owner.connected()) {
        return Optional.empty();
      }
      return Optional.of(get());
    }
  }

  /**
   * The connected engine's own store behind {@code store} if it is one of these proxies (so an
   * engine can recognise its stores, e.g. to decide a group in one call), else {@code store}.
   *
   * @throws io.windowpane.WindowpaneException if its engine is not connected yet
   */
  public static LimiterStore target(LimiterStore store) {
    return store instanceof Limiter l ? l.t.get() : store;
  }

  public static CounterStore counter(DeferredEngine owner, Function<Engine, CounterStore> make) {
    return new Counter(new Target<>(owner, make));
  }

  public static LimiterStore limiter(DeferredEngine owner, Function<Engine, LimiterStore> make) {
    return new Limiter(new Target<>(owner, make));
  }

  /**
   * A proxy whose store is {@code make(engine, current's store)} once the engine is connected:
   * {@code current} is one of these proxies of {@code owner}.
   */
  public static LimiterStore reconfigured(DeferredEngine owner, LimiterStore current,
      java.util.function.BiFunction<Engine, LimiterStore, LimiterStore> make) {
    Target<LimiterStore> old = ((Limiter) current).t;
    return new Limiter(new Target<>(owner, e -> make.apply(e, old.get())));
  }

  public static StatsStore stats(DeferredEngine owner, Function<Engine, StatsStore> make) {
    return new Stats(new Target<>(owner, make));
  }

  public static LockStore locks(DeferredEngine owner) {
    return new Locks(new Target<>(owner, e -> e.lockStore().orElseThrow(
        () -> new IllegalStateException(owner.name() + " was said to have locks, has none"))));
  }

  private static final class Counter implements CounterStore {
    private final Target<CounterStore> t;

    Counter(Target<CounterStore> t) {
      this.t = t;
    }

    @Override public long add(String key, long n) {
      return t.get().add(key, n);
    }

    @Override public void record(String key, long n) {
      t.get().record(key, n);
    }

    @Override public long count(String key) {
      return t.get().count(key);
    }

    @Override public boolean holdsState(String key) {
      return t.ifConnected().map(s -> s.holdsState(key)).orElse(false);
    }

    @Override public void cleanUp() {
      t.ifConnected().ifPresent(CounterStore::cleanUp);
    }

    @Override public Optional<List<TopKey>> topKeys(int n) {
      return t.get().topKeys(n);
    }

    @Override public List<Long> addAll(List<String> keys, long n) {
      return t.get().addAll(keys, n);
    }

    @Override public List<Long> countAll(List<String> keys) {
      return t.get().countAll(keys);
    }

    @Override public CompletionStage<Long> addAsync(String key, long n) {
      return t.async(s -> s.addAsync(key, n));
    }

    @Override public CompletionStage<Long> countAsync(String key) {
      return t.async(s -> s.countAsync(key));
    }

    @Override public CompletionStage<List<Long>> addAllAsync(List<String> keys, long n) {
      return t.async(s -> s.addAllAsync(keys, n));
    }

    @Override public CompletionStage<List<Long>> countAllAsync(List<String> keys) {
      return t.async(s -> s.countAllAsync(keys));
    }

    @Override public CompletionStage<Void> replayAsync(String key, long n, long atMillis,
        String replayId) {
      return t.async(s -> s.replayAsync(key, n, atMillis, replayId));
    }

    @Override public CompletionStage<io.windowpane.spi.EventTimeResult> addAtAsync(String key,
        long n, long atMillis, long maxAheadMillis) {
      return t.async(s -> s.addAtAsync(key, n, atMillis, maxAheadMillis));
    }

    @Override public CompletionStage<List<io.windowpane.spi.EventTimeResult>> addAllAtAsync(
        List<String> keys, long n, long atMillis, long maxAheadMillis) {
      return t.async(s -> s.addAllAtAsync(keys, n, atMillis, maxAheadMillis));
    }

    @Override public CompletionStage<Void> replayAllAsync(List<ReplayBatch> batches) {
      return t.async(s -> s.replayAllAsync(batches));
    }
  }

  private static final class Limiter implements LimiterStore {
    private final Target<LimiterStore> t;

    Limiter(Target<LimiterStore> t) {
      this.t = t;
    }

    @Override public Decision tryAcquire(String key, long permits) {
      return t.get().tryAcquire(key, permits);
    }

    @Override public boolean tryConsume(String key, long permits) {
      return t.get().tryConsume(key, permits);
    }

    @Override public boolean holdsState(String key) {
      return t.ifConnected().map(s -> s.holdsState(key)).orElse(false);
    }

    @Override public void cleanUp() {
      t.ifConnected().ifPresent(LimiterStore::cleanUp);
    }

    @Override public Optional<Decision> peek(String key, long permits) {
      return t.get().peek(key, permits);
    }

    @Override public CompletionStage<Optional<Decision>> peekAsync(String key, long permits) {
      return t.async(s -> s.peekAsync(key, permits));
    }

    @Override public Optional<List<TopKey>> topKeys(int n, boolean denied) {
      return t.get().topKeys(n, denied);
    }

    @Override public Optional<Grant> lease(String key, long minPermits, long maxPermits) {
      return t.get().lease(key, minPermits, maxPermits);
    }

    @Override public CompletionStage<Optional<Grant>> leaseAsync(String key, long minPermits,
        long maxPermits) {
      return t.async(s -> s.leaseAsync(key, minPermits, maxPermits));
    }

    @Override public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
        String releaseId) {
      return t.async(s -> s.releaseAsync(key, permits, atMillis, releaseId));
    }

    @Override public CompletionStage<Void> releaseAsync(String key, long permits, Grant grant,
        String releaseId) {
      return t.async(s -> s.releaseAsync(key, permits, grant, releaseId));
    }

    @Override public List<Decision> tryAcquireAll(List<String> keys, long permits) {
      return t.get().tryAcquireAll(keys, permits);
    }

    @Override public CompletionStage<Void> replayAsync(String key, long permits, long atMillis,
        String replayId) {
      return t.async(s -> s.replayAsync(key, permits, atMillis, replayId));
    }

    @Override public CompletionStage<Void> replayAllAsync(List<ReplayBatch> batches) {
      return t.async(s -> s.replayAllAsync(batches));
    }

    @Override public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
      return t.async(s -> s.tryAcquireAsync(key, permits));
    }

    @Override public CompletionStage<List<Decision>> tryAcquireAllAsync(List<String> keys,
        long permits) {
      return t.async(s -> s.tryAcquireAllAsync(keys, permits));
    }
  }

  private static final class Stats implements StatsStore {
    private final Target<StatsStore> t;

    Stats(Target<StatsStore> t) {
      this.t = t;
    }

    @Override public void record(String key, double[] values) {
      t.get().record(key, values);
    }

    @Override public void record(String key, double value) {
      t.get().record(key, value);
    }

    @Override public Summary summary(String key) {
      return t.get().summary(key);
    }

    @Override public boolean holdsState(String key) {
      return t.ifConnected().map(s -> s.holdsState(key)).orElse(false);
    }

    @Override public void cleanUp() {
      t.ifConnected().ifPresent(StatsStore::cleanUp);
    }

    @Override public Optional<List<TopKey>> topKeys(int n) {
      return t.get().topKeys(n);
    }

    @Override public List<Summary> summaryAll(List<String> keys) {
      return t.get().summaryAll(keys);
    }

    @Override public CompletionStage<Void> replayAsync(String key, double[] values,
        long atMillis, String replayId) {
      return t.async(s -> s.replayAsync(key, values, atMillis, replayId));
    }

    @Override public CompletionStage<io.windowpane.spi.EventTimeResult> recordAtAsync(String key,
        double[] values, long atMillis, long maxAheadMillis) {
      return t.async(s -> s.recordAtAsync(key, values, atMillis, maxAheadMillis));
    }

    @Override public CompletionStage<Void> replayAllAsync(List<ReplayBatch> batches) {
      return t.async(s -> s.replayAllAsync(batches));
    }

    @Override public CompletionStage<Void> recordAsync(String key, double[] values) {
      return t.async(s -> s.recordAsync(key, values));
    }

    @Override public CompletionStage<Summary> summaryAsync(String key) {
      return t.async(s -> s.summaryAsync(key));
    }

    @Override public CompletionStage<List<Summary>> summaryAllAsync(List<String> keys) {
      return t.async(s -> s.summaryAllAsync(keys));
    }
  }

  private static final class Locks implements LockStore {
    private final Target<LockStore> t;

    Locks(Target<LockStore> t) {
      this.t = t;
    }

    /** The engine's clock once connected; the system clock before (no lock is granted then). */
    @Override public MillisClock clock() {
      return t.ifConnected().map(LockStore::clock).orElse(MillisClock.system());
    }

    @Override public CompletionStage<OptionalLong> tryAcquire(String name, String token,
        long ttlMillis) {
      return t.async(s -> s.tryAcquire(name, token, ttlMillis));
    }

    @Override public CompletionStage<Boolean> renew(String name, String token, long ttlMillis) {
      return t.async(s -> s.renew(name, token, ttlMillis));
    }

    @Override public CompletionStage<Boolean> release(String name, String token) {
      return t.async(s -> s.release(name, token));
    }
  }
}
