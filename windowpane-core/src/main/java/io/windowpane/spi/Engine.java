package io.windowpane.spi;

import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What an engine provides: named stores of windows. Implemented by the local, Redis and etcd
 * engines; users reach it through {@link io.windowpane.Windowpane}.
 *
 * <p>Contract for implementors: arguments reaching a store are already validated (keys, counts,
 * permits), so a store only checks what depends on its backend. A store is thread-safe. Backend
 * failures surface as {@link io.windowpane.WindowpaneException} subclasses with the cause
 * attached, after the engine's timeouts, never as a hang. Every engine must pass the
 * conformance suite in {@code windowpane-testkit}.
 */
public interface Engine extends AutoCloseable {

  /** A short name for logs and decisions: "local", "redis", "etcd". */
  String name();

  /** The store of a sliding-window counter; {@code name} namespaces its keys in the backend. */
  CounterStore counterStore(String name, WindowSpec spec);

  /** The store of a rate limiter over {@code quota}; {@code name} namespaces its keys. */
  LimiterStore limiterStore(String name, Quota quota);

  /** The store of a statistics window; {@code name} namespaces its keys. */
  StatsStore statsStore(String name, StatsSpec spec);

  /**
   * The engine's locks, if it has them: {@link io.windowpane.Windowpane#lock} builds every
   * {@link io.windowpane.DistributedLock} on this one store. Empty by default, for engines
   * without locks.
   */
  default Optional<LockStore> lockStore() {
    return Optional.empty();
  }

  /**
   * Asks the backend whether it answers now, for health checks: completes normally if it does,
   * exceptionally with a {@link io.windowpane.WindowpaneException} (within the engine's
   * timeouts) if not. Never blocks the caller. An in-process engine always answers.
   */
  default CompletionStage<Void> probe() {
    return CompletableFuture.completedFuture(null);
  }

  /** Releases connections and threads; stores must not be used afterwards. */
  @Override
  void close();
}
