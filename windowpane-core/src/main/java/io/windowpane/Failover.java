package io.windowpane;

import io.windowpane.internal.failover.Chain;
import io.windowpane.internal.failover.FailoverSettings;
import io.windowpane.spi.Checks;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.DeferredEngine;
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
import java.util.concurrent.CompletionStage;

/**
 * An engine that answers every call from the first healthy member of an ordered chain of
 * engines, typically Redis, then etcd, then the in-process engine, so that callers keep getting
 * decisions while a backend is dead, hung or slow (see docs/failover.md).
 *
 * <pre>{@code
 * Failover chain = Failover.chain(redis, Windowpane.localBuilder().buildEngine())
 *     .fleetNodes(8)                 // the local fallback allows 1/8 of each limit per node
 *     .onFailure(OnFailure.DENY)     // if every member fails
 *     .build();
 * Windowpane wp = Windowpane.using(chain);
 * }</pre>
 *
 * <p><b>Health of a member.</b> {@link Health#UP} members take every call; a
 * {@link Health#READ_ONLY} member still answers counts and summaries while writes (adds,
 * acquires, records) go to the next member; a {@link Health#DOWN} member takes nothing. Signals
 * and the level each leads to:
 * <ul>
 *   <li>{@code probeFailuresToTrip} failed health probes in a row ({@link Engine#probe()}, every
 *       {@code probeInterval}, each given {@code probeTimeout}): DOWN.
 *   <li>{@code failuresToTrip} failed or timed-out calls in a row (a call waits at most
 *       {@code callTimeout} on a member, then is answered by the next): DOWN; but READ_ONLY when
 *       the failures were writes answered with an error while health probes (reads) kept
 *       passing, the mark of a backend refusing writes.
 *   <li>The p99 of the member's call latency, measured in windows of {@code latencyWindow} with
 *       windowpane's own statistics, above {@code latencyThreshold} for
 *       {@code slowWindowsToTrip} windows in a row: READ_ONLY.
 * </ul>
 * A READ_ONLY member that then fails probes or calls goes DOWN.
 *
 * <p><b>A member short of memory.</b> A member whose store refuses to create a key
 * ({@link KeyCreationRefusedException}: the Redis engine's memory guard under pressure) stays UP
 * and keeps every key it holds; the call on a new key goes to the next member at once, as if
 * the member were READ_ONLY for new keys only, and counts nothing against its breaker. Those
 * events are not replayed into it (the replay would create the key); with no member left, the
 * {@link OnFailure} policy answers a decision. A batch it refuses in part stays applied there
 * for its existing keys, and only its refused items go to the next member.
 *
 * <p><b>Recovery.</b> A tripped member is sent a small real write (a counter named
 * {@code wp-failover-probe}) every probe interval; after {@code probesToRecover} successes in a
 * row answered within the timeout and under the latency threshold ({@code probesToRecoverDouble}
 * when two or more different signals tripped it), the events its fallbacks took meanwhile are
 * replayed into it, and only then does it take calls again. A failed probe or replay starts the
 * count again; a member that trips again within 30 probe intervals of recovering needs twice the
 * probes the next time (up to 32 times), so the chain does not flap.
 *
 * <p><b>Replay.</b> Every add, allowed acquire and record answered by a member other than the
 * first is written to a journal in this process with its time; a member that recovers gets them
 * with their own timestamps through the SPI's {@code replayAsync} (idempotent per event batch),
 * except those no window holds any more, which are dropped and counted. The journal holds at
 * most {@code journalLimit} batches; events past it are counted as lost.
 *
 * <p><b>Fleet share.</b> In-process members ({@link Engine#inProcess()}) see one node's traffic;
 * their limits are each multiplied by {@code fleetShare} (at least 1 permit), so a fleet of N
 * nodes at {@code fleetNodes(N)} admits at most about the limit while they answer.
 *
 * <p><b>Last resort.</b> When no member answers a decision, {@link OnFailure} applies. Counters
 * and statistics then fail with a {@link WindowpaneException}.
 *
 * <p><b>Starting during an outage.</b> A member given as a {@link DeferredEngine} (e.g.
 * {@code RedisEngine.builder()...buildDeferred()}) that could not connect when the chain is built
 * starts DOWN (signal {@link Signal#CONNECT}, logged once); it keeps connecting in the
 * background and joins by the recovery rules above once it answers, with the replay of what
 * its fallbacks took meanwhile.
 *
 * <p><b>Leases and groups.</b> {@link LimiterStore#lease} is answered by the member a decision
 * would go to, and the {@link io.windowpane.spi.Grant} names it; its release goes to that member
 * only, never to another, and is dropped (counted in {@link Stats#droppedReleases()}) while it
 * is DOWN: the permits then stay counted there until they age out, which errs towards denying.
 * Permits granted by a fallback are journaled and replayed like allowed acquires; an in-process
 * fallback grants exactly the permits asked for (a slice saves no round trip there, and the
 * journal then holds only what was taken). An all-or-nothing group
 * ({@link Windowpane#tryAcquireAllOrNothing}) is decided on one member, never split across two:
 * a member that fails during a group gives back what it granted (if it can) and the whole group
 * is decided again by the next member. Hot-key leasing and all-or-nothing groups therefore keep
 * working through a chain (docs/failover.md).
 *
 * <p><b>Locks</b> are only ever taken on the first member, and fail (closed) with a
 * {@link WindowpaneException} while it is not UP: a fallback in another backend, or in process,
 * could grant the same lock to two nodes.
 *
 * <p>Thread-safe. One daemon thread per chain runs probes, latency checks and replays; state
 * changes are logged once each through {@link System.Logger} and reported to the
 * {@link Listener}. Closing the chain closes every member.
 */
public final class Failover implements Engine {

  /** The level of service of one member of the chain. */
  public enum Health {
    /** Takes every call. */
    UP,
    /** Answers counts and summaries; writes go to the next member. */
    READ_ONLY,
    /** Takes no call; probed until it recovers. */
    DOWN
  }

  /** What tripped a member. */
  public enum Signal {
    /** Health probes failed in a row. */
    PROBES,
    /** Calls failed or timed out in a row. */
    FAILURES,
    /** Writes were refused while reads answered. */
    WRITE_ERRORS,
    /** The call latency's p99 stayed above the threshold. */
    LATENCY,
    /** It could not connect when the chain was built (a {@link DeferredEngine}). */
    CONNECT
  }

  /** One member's state, a snapshot. */
  public record MemberStatus(String engine, Health health, List<Signal> signals,
      long sinceMillis, boolean replays, long pendingReplay) {}

  /**
   * A snapshot of the chain's counters since it was built. {@code droppedReleases} counts
   * releases of leased permits not sent because the member that granted them was DOWN: those
   * permits stay counted there until they leave its window.
   */
  public record Stats(long trips, long recoveries, long replayedEvents, long droppedEvents,
      long lostEvents, long journaledBatches, long droppedReleases) {}

  /** Told of every state change and replay; called on the chain's own thread, keep it short. */
  public interface Listener {
    /** {@code engine} went from {@code from} to {@code to}; {@code reason} says why. */
    default void healthChanged(String engine, Health from, Health to, String reason) {}

    /** {@code events} journaled events were replayed into {@code engine}. */
    default void replayed(String engine, long events) {}
  }

  private final Chain chain;

  private Failover(Chain chain) {
    this.chain = chain;
  }

  /**
   * A chain answering from {@code primary} while it is healthy, else from the first healthy of
   * {@code fallbacks}, in order.
   */
  public static Builder chain(Engine primary, Engine... fallbacks) {
    Checks.notNull("primary", primary);
    Checks.notNull("fallbacks", fallbacks);
    List<Engine> members = new ArrayList<>();
    members.add(primary);
    for (int i = 0; i < fallbacks.length; i++) {
      members.add(Checks.notNull("fallbacks[" + i + "]", fallbacks[i]));
    }
    return chain(members);
  }

  /** A chain over {@code members}, the first being the primary (1 to 8 engines). */
  public static Builder chain(List<Engine> members) {
    Checks.notNull("members", members);
    Checks.inRange("members (count)", members.size(), 1, Chain.MAX_MEMBERS);
    for (int i = 0; i < members.size(); i++) {
      Checks.notNull("members[" + i + "]", members.get(i));
    }
    return new Builder(List.copyOf(members));
  }

  /** "failover". */
  @Override
  public String name() {
    return "failover";
  }

  /** The member answering writes now, or {@code "none"} when every member is tripped. */
  public String activeEngine() {
    return chain.activeEngine();
  }

  /** The memory status of the first member that has a memory guard (its Redis member). */
  @Override
  public Optional<MemoryStatus> memoryStatus() {
    return chain.memoryStatus();
  }

  /** Whether writes are answered by another member than the first. */
  public boolean degraded() {
    return chain.degraded();
  }

  /** Every member's state, in chain order. */
  public List<MemberStatus> status() {
    return chain.status();
  }

  /** The chain's counters. */
  public Stats stats() {
    return chain.stats();
  }

  /**
   * Runs one round of probes and replays now and waits for it (at most the probe timeout plus
   * the replays); the chain's thread does the same every probe interval. For tests and tools.
   */
  public void checkNow() {
    chain.checkNow();
  }

  /** Reports each member call to {@code observer}: see {@code Windowpane.using}. */
  void observer(EngineObserver observer) {
    chain.observer(observer);
  }

  @Override
  public CounterStore counterStore(String name, WindowSpec spec) {
    return chain.counterStore(name, spec);
  }

  @Override
  public LimiterStore limiterStore(String name, Quota quota) {
    return chain.limiterStore(name, quota);
  }

  /**
   * Each member's store reconfigured by its own engine (an in-process member with its fleet
   * share of the new permits), under the same journal: events a fallback took before the change
   * are still replayed.
   */
  @Override
  public LimiterStore reconfiguredLimiterStore(String name, LimiterStore current, Quota quota) {
    return chain.reconfiguredLimiterStore(name, current, quota);
  }

  @Override
  public StatsStore statsStore(String name, StatsSpec spec) {
    return chain.statsStore(name, spec);
  }

  /** The first member's locks, failing closed while it is not UP; empty if it has none. */
  @Override
  public Optional<LockStore> lockStore() {
    return chain.lockStore();
  }

  /**
   * Completes normally while some member takes writes (degraded or not), exceptionally when
   * none does.
   */
  @Override
  public CompletionStage<Void> probe() {
    return chain.probe();
  }

  /** Decides the group on one member: the first that takes writes (see the class comment). */
  @Override
  public CompletionStage<Optional<GroupDecision>> tryAcquireAllOrNothingAsync(
      List<GroupRequest> requests) {
    return chain.tryAcquireAllOrNothingAsync(requests);
  }

  /** Whether the first member takes replays. */
  @Override
  public boolean replays() {
    return false;
  }

  /** Stops the chain's thread and closes every member. */
  @Override
  public void close() {
    chain.close();
  }

  @Override
  public String toString() {
    return "Failover" + chain;
  }

  /** Options of a chain; every default is stated on its setter and in docs/failover.md. */
  public static final class Builder {
    private static final FailoverSettings D = FailoverSettings.DEFAULTS;

    private final List<Engine> members;
    private long probeIntervalMillis = D.probeIntervalMillis();
    private long probeTimeoutMillis = D.probeTimeoutMillis();
    private int probeFailuresToTrip = D.probeFailuresToTrip();
    private long callTimeoutMillis = D.callTimeoutMillis();
    private int failuresToTrip = D.failuresToTrip();
    private long latencyThresholdMillis = D.latencyThresholdMillis();
    private long latencyWindowMillis = D.latencyWindowMillis();
    private int slowWindowsToTrip = D.slowWindowsToTrip();
    private int probesToRecover = D.probesToRecover();
    private int probesToRecoverDouble = D.probesToRecoverDouble();
    private double fleetShare = D.fleetShare();
    private OnFailure onFailure = D.onFailure();
    private long journalLimit = D.journalLimit();
    private MillisClock clock = D.clock();
    private Listener listener = D.listener();
    private boolean background = D.background();
    private boolean callTimeoutSet;
    private boolean probeTimeoutSet;
    private final java.util.Map<String, FailoverSettings.MemberTimeouts> memberTimeouts =
        new java.util.LinkedHashMap<>();

    private Builder(List<Engine> members) {
      this.members = members;
    }

    /** How often each member is probed (default 100 ms; 10 ms to 1 min). */
    public Builder probeInterval(Duration interval) {
      this.probeIntervalMillis = Checks.millis("probeInterval", interval, 10, 60_000);
      return this;
    }

    /**
     * How long a probe may take before it counts as failed (1 ms to 1 min), for every member
     * without its own. Default: each engine's {@link Engine#failoverTimeout()} (100 ms; etcd
     * 500 ms).
     */
    public Builder probeTimeout(Duration timeout) {
      this.probeTimeoutMillis = Checks.millis("probeTimeout", timeout, 1, 60_000);
      this.probeTimeoutSet = true;
      return this;
    }

    /**
     * The call and probe timeouts of the member named {@code member} (its engine's name, as
     * {@link Failover#status()} shows it: "redis", "etcd"; a second member of the same engine is
     * "etcd-2"), over the chain's and its engine's defaults; each 1 ms to 1 min. A name that is
     * not a member fails {@link #build()}.
     */
    public Builder memberTimeouts(String member, Duration callTimeout, Duration probeTimeout) {
      Checks.notNull("member", member);
      memberTimeouts.put(member, new FailoverSettings.MemberTimeouts(
          Checks.millis("memberTimeouts.callTimeout", callTimeout, 1, 60_000),
          Checks.millis("memberTimeouts.probeTimeout", probeTimeout, 1, 60_000)));
      return this;
    }

    /** Failed probes in a row that trip a member DOWN (default 2; 1 to 100). */
    public Builder probeFailuresToTrip(int n) {
      this.probeFailuresToTrip = (int) Checks.inRange("probeFailuresToTrip", n, 1, 100);
      return this;
    }

    /**
     * How long a call waits on a member before the next member answers it (1 ms to 1 min), for
     * every member without its own ({@link #memberTimeouts}). Default: each engine's
     * {@link Engine#failoverTimeout()} (100 ms; etcd 500 ms). In-process members are never
     * timed out.
     */
    public Builder callTimeout(Duration timeout) {
      this.callTimeoutMillis = Checks.millis("callTimeout", timeout, 1, 60_000);
      this.callTimeoutSet = true;
      return this;
    }

    /** Failed or timed-out calls in a row that trip a member (default 3; 1 to 10,000). */
    public Builder failuresToTrip(int n) {
      this.failuresToTrip = (int) Checks.inRange("failuresToTrip", n, 1, 10_000);
      return this;
    }

    /** The call latency p99 above which a window counts as slow (default 50 ms; 1 ms to 1 min). */
    public Builder latencyThreshold(Duration threshold) {
      this.latencyThresholdMillis = Checks.millis("latencyThreshold", threshold, 1, 60_000);
      return this;
    }

    /**
     * The window over which the latency p99 is taken (default 50 ms; 10 ms to 1 min, a multiple
     * of 10 ms).
     */
    public Builder latencyWindow(Duration window) {
      long millis = Checks.millis("latencyWindow", window, 10, 60_000);
      if (millis % 10 != 0) {
        throw new IllegalArgumentException(
            "latencyWindow must be a multiple of 10 ms in [10 ms, 60000 ms], was " + window);
      }
      this.latencyWindowMillis = millis;
      return this;
    }

    /** Slow windows in a row that trip a member READ_ONLY (default 3; 1 to 100, 0 turns it off). */
    public Builder slowWindowsToTrip(int n) {
      this.slowWindowsToTrip = (int) Checks.inRange("slowWindowsToTrip", n, 0, 100);
      return this;
    }

    /**
     * Passed probes in a row before a tripped member takes calls again: {@code single} after a
     * trip by one signal (default 2), {@code twice} after one by two or more (default 5); each 1
     * to 100, {@code twice >= single}.
     */
    public Builder probesToRecover(int single, int twice) {
      this.probesToRecover = (int) Checks.inRange("probesToRecover (single)", single, 1, 100);
      this.probesToRecoverDouble = (int) Checks.inRange("probesToRecover (twice)", twice, single,
          100);
      return this;
    }

    /**
     * The part of each limit an in-process member allows on this node (default 1; more than 0,
     * at most 1).
     */
    public Builder fleetShare(double share) {
      if (!(share > 0 && share <= 1)) {
        throw new IllegalArgumentException("fleetShare must be in (0, 1], was " + share);
      }
      this.fleetShare = share;
      return this;
    }

    /** {@code fleetShare(1.0 / nodes)}: the fleet has {@code nodes} nodes (1 to 100,000). */
    public Builder fleetNodes(int nodes) {
      Checks.inRange("fleetNodes", nodes, 1, 100_000);
      this.fleetShare = 1.0 / nodes;
      return this;
    }

    /** The answer to a decision when no member can give one (default {@link OnFailure#ERROR}). */
    public Builder onFailure(OnFailure policy) {
      this.onFailure = Checks.notNull("onFailure", policy);
      return this;
    }

    /** The most journaled batches awaiting replay (default 1,000,000; 0 to 100,000,000). */
    public Builder journalLimit(long batches) {
      this.journalLimit = Checks.inRange("journalLimit", batches, 0, 100_000_000);
      return this;
    }

    /** The clock of journal timestamps and latency windows (default: the system clock). */
    public Builder clock(MillisClock clock) {
      this.clock = Checks.notNull("clock", clock);
      return this;
    }

    /** Told of state changes and replays (default: none). */
    public Builder listener(Listener listener) {
      this.listener = Checks.notNull("listener", listener);
      return this;
    }

    /**
     * Whether the chain runs its own thread (default true). Off, nothing happens between calls
     * but what {@link Failover#checkNow()} does: for tests with a manual clock.
     */
    public Builder background(boolean background) {
      this.background = background;
      return this;
    }

    /** The chain; its thread starts now. */
    public Failover build() {
      return new Failover(new Chain(members, new FailoverSettings(probeIntervalMillis,
          probeTimeoutMillis, probeFailuresToTrip, callTimeoutMillis, failuresToTrip,
          latencyThresholdMillis, latencyWindowMillis, slowWindowsToTrip, probesToRecover,
          probesToRecoverDouble, fleetShare, onFailure, journalLimit, clock, listener,
          background, callTimeoutSet, probeTimeoutSet, java.util.Map.copyOf(memberTimeouts))));
    }
  }
}
