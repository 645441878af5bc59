package io.windowpane.failover;

import io.windowpane.KeyCreationRefusedException;
import io.windowpane.MillisClock;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Engine;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A remote-looking engine for the chain's unit tests: the real local engine underneath, with
 * faults switched on by the test (every call fails, hangs, or only writes fail), calls counted,
 * and replays applied as adds at replay time and logged with their timestamp and id. The real
 * backends' behaviour under faults is tested against redis-server and etcd in their modules.
 */
final class FaultyEngine implements Engine {

  /**
   * REFUSE_NEW_KEYS: every write refused as a new key; REFUSE_UNHELD_KEYS: as a Redis under
   * memory pressure, writes on keys this engine holds no state for refused, a batch's other
   * items applied.
   */
  enum Fault { NONE, FAIL, HANG, REFUSE_WRITES, REFUSE_NEW_KEYS, REFUSE_UNHELD_KEYS }

  /** A replay the chain sent. */
  record Replay(String store, String key, long count, long atMillis, String id) {}

  private final String name;
  private final Engine local;
  volatile Fault fault = Fault.NONE;
  volatile boolean failReplays;
  /** Calls after which every call fails (Integer.MAX_VALUE: never). */
  volatile int failAfterCalls = Integer.MAX_VALUE;
  /** Releases of leased permits this engine was sent: "key permits". */
  final List<String> releases = new CopyOnWriteArrayList<>();
  final AtomicInteger calls = new AtomicInteger();
  final List<Replay> replays = new CopyOnWriteArrayList<>();

  FaultyEngine(String name, MillisClock clock) {
    this.name = name;
    this.local = Windowpane.localBuilder().clock(clock).buildEngine();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean replays() {
    return true;
  }

  <T> CompletionStage<T> call(boolean write, java.util.function.Supplier<CompletionStage<T>> op) {
    if (calls.incrementAndGet() > failAfterCalls) {
      return CompletableFuture.failedFuture(new WindowpaneException(name + " died"));
    }
    switch (fault) {
      case FAIL:
        return CompletableFuture.failedFuture(new WindowpaneException(name + " is down"));
      case HANG:
        return new CompletableFuture<>();
      case REFUSE_NEW_KEYS: // as a Redis short of memory: every write here is on a new key
        if (write) {
          return CompletableFuture.failedFuture(
              new io.windowpane.KeyCreationRefusedException(name + " refuses new keys"));
        }
        return op.get();
      case REFUSE_WRITES:
        if (write) {
          return CompletableFuture.failedFuture(new WindowpaneException(name + " refuses writes"));
        }
        return op.get();
      default:
        return op.get();
    }
  }

  /** A write on {@code key}: refused under REFUSE_UNHELD_KEYS when {@code holds} says new. */
  private <T> CompletionStage<T> write(String key, Predicate<String> holds,
      java.util.function.Supplier<CompletionStage<T>> op) {
    if (fault == Fault.REFUSE_UNHELD_KEYS && !holds.test(key)) {
      return CompletableFuture.failedFuture(
          new KeyCreationRefusedException(name + " refuses new key " + key));
    }
    return call(true, op);
  }

  /**
   * A batch of writes, one per key, applied in order; under REFUSE_UNHELD_KEYS the items on
   * keys {@code holds} says are new are refused, the others applied, as the Redis engine does.
   */
  private <T> CompletionStage<List<T>> batch(String what, List<String> keys,
      Predicate<String> holds, Function<String, CompletionStage<T>> one) {
    return call(true, () -> {
      List<T> out = new ArrayList<>(keys.size());
      for (String key : keys) {
        boolean refused = fault == Fault.REFUSE_UNHELD_KEYS && !holds.test(key);
        out.add(refused ? null : one.apply(key).toCompletableFuture().join());
      }
      return out.contains(null) ? CompletableFuture.failedFuture(KeyCreationRefusedException
          .ofBatch(what, keys, out, name + " refuses new keys", null))
          : CompletableFuture.completedFuture(out);
    });
  }

  @Override
  public java.util.Optional<io.windowpane.spi.LockStore> lockStore() {
    return local.lockStore();
  }

  @Override
  public CompletionStage<Void> probe() {
    return call(false, () -> CompletableFuture.completedFuture(null));
  }

  @Override
  public CounterStore counterStore(String storeName, WindowSpec spec) {
    CounterStore s = local.counterStore(storeName, spec);
    return new CounterStore() {
      @Override
      public long add(String key, long n) {
        return addAsync(key, n).toCompletableFuture().join();
      }

      @Override
      public long count(String key) {
        return countAsync(key).toCompletableFuture().join();
      }

      @Override
      public boolean holdsState(String key) {
        return s.holdsState(key);
      }

      @Override
      public CompletionStage<Long> addAsync(String key, long n) {
        return write(key, s::holdsState, () -> s.addAsync(key, n));
      }

      @Override
      public CompletionStage<List<Long>> addAllAsync(List<String> keys, long n) {
        return batch("addAll", keys, s::holdsState, key -> s.addAsync(key, n));
      }

      @Override
      public CompletionStage<Long> countAsync(String key) {
        return call(false, () -> s.countAsync(key));
      }

      @Override
      public CompletionStage<io.windowpane.spi.EventTimeResult> addAtAsync(String key, long n,
          long atMillis, long maxAheadMillis) {
        return call(true, () -> s.addAtAsync(key, n, atMillis, maxAheadMillis));
      }

      @Override
      public CompletionStage<Void> replayAsync(String key, long n, long atMillis, String id) {
        return call(true, () -> replay(storeName, key, n, atMillis, id, () -> s.add(key, n)));
      }

      @Override
      public java.util.Optional<List<io.windowpane.TopKey>> topKeys(int n) {
        return read(() -> s.topKeys(n));
      }
    };
  }

  @Override
  public LimiterStore limiterStore(String storeName, Quota quota) {
    LimiterStore s = local.limiterStore(storeName, quota);
    return new LimiterStore() {
      @Override
      public io.windowpane.Decision tryAcquire(String key, long permits) {
        return tryAcquireAsync(key, permits).toCompletableFuture().join();
      }

      @Override
      public boolean holdsState(String key) {
        return s.holdsState(key);
      }

      @Override
      public CompletionStage<io.windowpane.Decision> tryAcquireAsync(String key, long permits) {
        return write(key, s::holdsState, () -> s.tryAcquireAsync(key, permits));
      }

      @Override
      public CompletionStage<List<io.windowpane.Decision>> tryAcquireAllAsync(List<String> keys,
          long permits) {
        return batch("tryAcquireAll", keys, s::holdsState,
            key -> s.tryAcquireAsync(key, permits));
      }

      @Override
      public CompletionStage<Void> replayAsync(String key, long permits, long atMillis,
          String id) {
        return call(true, () -> replay(storeName, key, permits, atMillis, id, () -> { }));
      }

      @Override
      public CompletionStage<java.util.Optional<io.windowpane.spi.Grant>> leaseAsync(String key,
          long minPermits, long maxPermits) {
        return call(true, () -> s.leaseAsync(key, minPermits, maxPermits));
      }

      @Override
      public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
          String id) {
        return call(true, () -> {
          releases.add(key + " " + permits);
          return s.releaseAsync(key, permits, atMillis, id);
        });
      }

      @Override
      public java.util.Optional<io.windowpane.Decision> peek(String key, long permits) {
        return read(() -> s.peek(key, permits));
      }

      @Override
      public java.util.Optional<List<io.windowpane.TopKey>> topKeys(int n, boolean denied) {
        return read(() -> s.topKeys(n, denied));
      }
    };
  }

  @Override
  public StatsStore statsStore(String storeName, StatsSpec spec) {
    return local.statsStore(storeName, spec);
  }

  /** A blocking read through the fault switch (a failure surfaces as an exception). */
  private <T> T read(java.util.function.Supplier<T> op) {
    return call(false, () -> CompletableFuture.completedFuture(op.get()))
        .toCompletableFuture().join();
  }

  private CompletionStage<Void> replay(String store, String key, long n, long atMillis,
      String id, Runnable apply) {
    if (failReplays) {
      return CompletableFuture.failedFuture(new WindowpaneException("replay refused"));
    }
    replays.add(new Replay(store, key, n, atMillis, id));
    apply.run();
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public void close() {
    local.close();
  }
}
