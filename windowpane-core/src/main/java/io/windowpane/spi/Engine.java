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
 *
 * <p>Helpers for implementors, in this package: {@link Checks} (the API's argument checks and
 * messages, for an engine's own options), {@link AllOrNothing} (the engine-neutral group
 * algorithm, {@link #tryAcquireAllOrNothingAsync}'s default) and {@link Durations} (the notation
 * of window lengths in names and messages).
 */
public interface Engine extends AutoCloseable {

  /** A short name for logs and decisions: "local", "redis", "etcd". */
  String name();

  /** The store of a sliding-window counter; {@code name} namespaces its keys in the backend. */
  CounterStore counterStore(String name, WindowSpec spec);

  /** The store of a rate limiter over {@code quota}; {@code name} namespaces its keys. */
  LimiterStore limiterStore(String name, Quota quota);

  /**
   * The store of rate limiter {@code name} over {@code quota} that reads and writes the state of
   * {@code current}, for {@link io.windowpane.Windowpane#reconfigure}: every key keeps its
   * counts, and the new permits apply from the next decision. {@code current} is a store this
   * engine made for {@code name} (by {@link #limiterStore} or this method); {@code quota} has
   * the same limits as its quota, in the same order, over the same windows, and differs only in
   * their permits and names (the caller checked it). {@code current} stays usable: calls in
   * flight on it finish on the same state.
   *
   * <p>The default is {@code limiterStore(name, quota)}: right for an engine that keeps a
   * limiter's state in its backend under keys named by the limiter's name and its windows,
   * with the permits sent on each call (Redis). An engine that keeps state in the store object
   * (the local engine) or names its keys by the permits (etcd) overrides it, as does an engine
   * that wraps others (a failover chain).
   */
  default LimiterStore reconfiguredLimiterStore(String name, LimiterStore current, Quota quota) {
    return limiterStore(name, quota);
  }

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

  /**
   * Whether this engine's stores take replayed events ({@code replayAsync} on
   * {@link CounterStore}, {@link LimiterStore} and {@link StatsStore}): a failover chain replays
   * into a recovered member the events its fallbacks took meanwhile, and drops them (counting
   * them as lost) for a member that answers false. False by default.
   *
   * <p>Contract for implementors of {@code replayAsync}:
   * <ul>
   *   <li>The events are recorded as having happened at {@code atMillis} by the engine's time:
   *       into the pane, slot or log position of that instant, not the newest one. An
   *       {@code atMillis} later than the engine's now is taken as now.
   *   <li>Events that no window holds any more ({@code atMillis <= now - W} for every window
   *       concerned) are dropped; the stage completes normally.
   *   <li>A limiter records the permits in every limit of its quota, past the limit if need be:
   *       no decision is taken, and nothing is denied.
   *   <li>Idempotent per {@code replayId} (1 to 64 characters of {@code [A-Za-z0-9_.:-]}, unique
   *       per event or batch of events): a replay whose id the engine has seen for the same
   *       key within the window's expiry changes nothing, so a chain may send a replay again
   *       when it does not know whether the first one landed.
   *   <li>Atomic per call; never blocks the caller; fails the stage with a
   *       {@link io.windowpane.WindowpaneException} within the engine's timeouts.
   * </ul>
   */
  default boolean replays() {
    return false;
  }

  /**
   * Whether this engine keeps its state in this process only, so that each node of a fleet
   * counts only its own traffic: a failover chain divides the limits of such a member by its
   * fleet share. False by default; the local engine answers true.
   */
  default boolean inProcess() {
    return false;
  }

  /**
   * Decides {@code requests} all or nothing: each request's permits are recorded, or none stays
   * recorded, with the answer {@link io.windowpane.Windowpane#tryAcquireAllOrNothing} states.
   * Every request's {@link GroupRequest#store()} is one of this engine's limiter stores.
   *
   * <p>The default leases the requests one by one in a fixed order (limiter, then key) with
   * {@link LimiterStore#leaseAsync} and gives back what it took at the first denial
   * (docs/guarantees.md); it completes empty, with nothing recorded, when the stores cannot
   * lease. An engine that can decide a group in one atomic backend call overrides it; a
   * failover chain decides the whole group on one member.
   */
  default CompletionStage<Optional<io.windowpane.GroupDecision>> tryAcquireAllOrNothingAsync(
      java.util.List<GroupRequest> requests) {
    return AllOrNothing.acquire(requests);
  }

  /**
   * How long a failover chain waits on this engine by default, for a call and for a health
   * probe: 100 ms by default; an engine whose writes commit through consensus answers it with
   * more (etcd: 500 ms, a raft commit and an fsync). A chain's builder overrides it for every
   * member ({@code callTimeout}, {@code probeTimeout}) or for one
   * ({@code memberTimeouts}).
   */
  default java.time.Duration failoverTimeout() {
    return java.time.Duration.ofMillis(100);
  }

  /**
   * What the engine's memory guard last saw of its store's memory (the Redis engine; a chain
   * answers its first member that has a guard), read without I/O. Empty by default, for engines
   * without one.
   */
  default Optional<io.windowpane.MemoryStatus> memoryStatus() {
    return Optional.empty();
  }

  /** Releases connections and threads; stores must not be used afterwards. */
  @Override
  void close();
}
