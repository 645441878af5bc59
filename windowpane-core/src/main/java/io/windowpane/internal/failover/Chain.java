package io.windowpane.internal.failover;

import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import io.windowpane.Failover.MemberStatus;
import io.windowpane.GroupDecision;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.WindowpaneException;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.DeferredEngine;
import io.windowpane.spi.Engine;
import io.windowpane.spi.GroupRequest;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.LockStore;
import io.windowpane.spi.StatsStore;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/*
 * The failover chain behind io.windowpane.Failover: its members, their stores, and three parts
 * with one concern each:
 *
 *   Router         which member answers a call, the fall-through on failure or timeout, the
 *                  journal of what a fallback took;
 *   HealthMonitor  the chain's thread: probes, latency checks, trips and recoveries;
 *   Replayer       the journal's replay into a recovering or recovered member, paced.
 *
 * This class builds them, hands out the stores (one per member, wrapped), and answers for the
 * chain's state. Recovery is replay first, then UP: while a member catches up, writes still go
 * to its fallback; what the fallback takes meanwhile is replayed in further rounds, and the
 * tail after UP, paced.
 */
public final class Chain {

  /** The most members of a chain (the journal's bit sets are ints). */
  public static final int MAX_MEMBERS = 8;

  private static final String PROBE_COUNTER = "wp-failover-probe";
  /** A trip within this many probe intervals of a recovery is a flap (3 s by default). */
  static final long FLAP_WINDOW_PROBES = 30;

  final Member[] members;
  final FailoverSettings settings;
  final Router router;
  private final HealthMonitor health;
  private final Replayer replayer;
  private final String nodeId;
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong journalSize = new AtomicLong();
  final Journal.Counters counters = new Journal.Counters();
  final AtomicLong droppedReleases = new AtomicLong();
  private final ScheduledThreadPoolExecutor thread;
  private volatile boolean closed;

  public Chain(List<Engine> engines, FailoverSettings settings) {
    this.settings = settings;
    this.members = new Member[engines.size()];
    Set<String> names = new java.util.LinkedHashSet<>();
    long now = settings.clock().millis();
    for (int i = 0; i < members.length; i++) {
      Engine e = engines.get(i);
      String name = names.add(e.name()) ? e.name() : e.name() + "-" + (i + 1);
      names.add(name);
      members[i] = new Member(i, e, name, settings.callTimeoutMillis(name, e),
          settings.probeTimeoutMillis(name, e), settings.latencyWindowMillis(),
          FLAP_WINDOW_PROBES * settings.probeIntervalMillis(), now);
    }
    for (String named : settings.memberTimeouts().keySet()) {
      if (!names.contains(named)) {
        throw new IllegalArgumentException("memberTimeouts: '" + named + "' is not a member of "
            + "the chain " + names);
      }
    }
    CounterStore[] probeCounters = new CounterStore[members.length];
    for (int i = 0; i < members.length; i++) {
      if (!members[i].inProcess) {
        probeCounters[i] = members[i].engine.counterStore(PROBE_COUNTER,
            WindowSpec.panes(Duration.ofSeconds(1), 1));
      }
    }
    byte[] random = new byte[6];
    new SecureRandom().nextBytes(random);
    StringBuilder id = new StringBuilder();
    for (byte b : random) {
      id.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
    }
    this.nodeId = id.toString();
    this.thread = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "windowpane-failover");
      t.setDaemon(true);
      return t;
    });
    thread.setRemoveOnCancelPolicy(true);
    this.health = new HealthMonitor(members, settings, probeCounters, nodeId, thread);
    this.router = new Router(members, settings, health);
    this.replayer = new Replayer(members, settings, health);
    health.wire(router, replayer);
    for (Member m : members) {
      if (m.engine instanceof DeferredEngine d && !d.connected()) {
        health.startDown(m, d);
      }
    }
    if (settings.background()) {
      thread.scheduleWithFixedDelay(this::tick, settings.probeIntervalMillis(),
          settings.probeIntervalMillis(), TimeUnit.MILLISECONDS);
      if (settings.slowWindowsToTrip() > 0) {
        thread.scheduleAtFixedRate(health::checkLatency, settings.latencyWindowMillis(),
            settings.latencyWindowMillis(), TimeUnit.MILLISECONDS);
      }
    }
  }

  // ---- stores -------------------------------------------------------------------------------

  /** Reports each member call to {@code observer} from now on (Windowpane.using). */
  public void observer(io.windowpane.spi.EngineObserver observer) {
    router.observer(observer);
  }

  public CounterStore counterStore(String name, WindowSpec spec) {
    CounterStore[] stores = new CounterStore[members.length];
    for (int i = 0; i < stores.length; i++) {
      stores[i] = members[i].engine.counterStore(name, spec);
    }
    return register(new FailoverCounterStore(this, stores, journal(spec.expiryMillis())));
  }

  public LimiterStore limiterStore(String name, Quota quota) {
    LimiterStore[] stores = new LimiterStore[members.length];
    Quota[] quotas = new Quota[members.length];
    for (int i = 0; i < stores.length; i++) {
      quotas[i] = members[i].inProcess ? FleetShare.scale(quota, settings.fleetShare()) : quota;
      stores[i] = members[i].engine.limiterStore(name, quotas[i]);
    }
    return register(new FailoverLimiterStore(this, quota, stores, quotas,
        journal(quota.expiryMillis())));
  }

  /**
   * {@code current}'s members' stores reconfigured to {@code quota} by their engines, under
   * {@code current}'s journal. The new store is not registered for replay: {@code current} stays
   * registered with the same journal, and its member stores read and write the same state.
   */
  public LimiterStore reconfiguredLimiterStore(String name, LimiterStore current, Quota quota) {
    FailoverLimiterStore old = (FailoverLimiterStore) current;
    LimiterStore[] stores = new LimiterStore[members.length];
    Quota[] quotas = new Quota[members.length];
    for (int i = 0; i < stores.length; i++) {
      quotas[i] = members[i].inProcess ? FleetShare.scale(quota, settings.fleetShare()) : quota;
      stores[i] = members[i].engine.reconfiguredLimiterStore(name, old.stores[i], quotas[i]);
    }
    return new FailoverLimiterStore(this, quota, stores, quotas, old.journal);
  }

  public StatsStore statsStore(String name, StatsSpec spec) {
    StatsStore[] stores = new StatsStore[members.length];
    for (int i = 0; i < stores.length; i++) {
      stores[i] = members[i].engine.statsStore(name, spec);
    }
    return register(new FailoverStatsStore(this, stores, journal(spec.expiryMillis())));
  }

  public Optional<LockStore> lockStore() {
    Member first = members[0];
    return first.engine.lockStore().map(store -> new FailoverLockStore(first, store));
  }

  /** Decides {@code requests} all or nothing on one member (ChainGroups). */
  public CompletionStage<Optional<GroupDecision>> tryAcquireAllOrNothingAsync(
      List<GroupRequest> requests) {
    return ChainGroups.acquire(this, requests);
  }

  private Journal journal(long expiryMillis) {
    return new Journal(nodeId, sequence, journalSize, settings.journalLimit(), expiryMillis,
        counters);
  }

  private <T extends Replayable> T register(T store) {
    replayer.replayables.add(store);
    return store;
  }

  /** A store whose fallbacks' events can be replayed. */
  interface Replayable {
    Journal journal();

    /** One batch into member {@code member}. */
    CompletionStage<Void> replay(int member, String key, Journal.Batch batch);

    /** Many batches into member {@code member}, in as few engine calls as it can. */
    CompletionStage<Void> replayAll(int member, List<Journal.Pending> batches);
  }

  // ---- what the stores use -----------------------------------------------------------------

  /** The index of the member named {@code name}, or -1. */
  int memberIndex(String name) {
    for (Member m : members) {
      if (m.name.equals(name)) {
        return m.index;
      }
    }
    return -1;
  }

  // ---- state --------------------------------------------------------------------------------

  CompletableFuture<Void> tick() {
    return closed ? CompletableFuture.completedFuture(null) : health.tick();
  }

  public String activeEngine() {
    return health.activeEngine();
  }

  public boolean degraded() {
    return router.next(true, 0) != 0;
  }

  public List<MemberStatus> status() {
    List<MemberStatus> out = new ArrayList<>();
    for (Member m : members) {
      out.add(new MemberStatus(m.name, m.health, m.signals(), m.sinceMillis(), m.replays,
          replayer.pendingEvents(m.index)));
    }
    return out;
  }

  public Failover.Stats stats() {
    return new Failover.Stats(health.trips.get(), health.recoveries.get(),
        counters.replayed.get(), counters.dropped.get(), counters.lost.get(),
        counters.journaled.get(), droppedReleases.get());
  }

  public CompletionStage<Void> probe() {
    return router.next(true, 0) >= 0 ? CompletableFuture.completedFuture(null)
        : CompletableFuture.failedFuture(
            new WindowpaneException("no engine of the chain " + this + " takes writes"));
  }

  public void checkNow() {
    try {
      thread.submit(() -> {
        health.checkLatency();
        return tick();
      }).get().get(maxProbeTimeoutMillis() + 30_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WindowpaneException("interrupted", e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new WindowpaneException("failover check failed: " + Router.unwrap(e),
          Router.unwrap(e));
    }
  }

  private long maxProbeTimeoutMillis() {
    long most = 0;
    for (Member m : members) {
      most = Math.max(most, m.probeTimeoutMillis);
    }
    return most;
  }

  /** Visible for tests: the executor the chain's work runs on. */
  ScheduledExecutorService thread() {
    return thread;
  }

  public void close() {
    closed = true;
    thread.shutdownNow();
    RuntimeException first = null;
    for (Member m : members) {
      try {
        m.engine.close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public String toString() {
    List<String> names = new ArrayList<>();
    for (Member m : members) {
      names.add(m.toString());
    }
    return names.toString();
  }

  /** The memory status of the first member that has a memory guard; empty when none has. */
  public java.util.Optional<io.windowpane.MemoryStatus> memoryStatus() {
    for (Member m : members) {
      java.util.Optional<io.windowpane.MemoryStatus> status = m.engine.memoryStatus();
      if (status.isPresent()) {
        return status;
      }
    }
    return java.util.Optional.empty();
  }
}
