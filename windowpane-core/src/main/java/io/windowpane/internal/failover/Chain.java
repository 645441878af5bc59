package io.windowpane.internal.failover;

import io.windowpane.CapacityExceededException;
import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import io.windowpane.Failover.MemberStatus;
import io.windowpane.Failover.Signal;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.WindowpaneException;
import io.windowpane.WindowpaneTimeoutException;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.DeferredEngine;
import io.windowpane.spi.Engine;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.LockStore;
import io.windowpane.spi.StatsStore;
import java.lang.System.Logger.Level;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.IntFunction;

/*
 * The failover chain behind io.windowpane.Failover.
 *
 * Routing: a write goes to the first UP member, a read to the first UP or READ_ONLY one. A call
 * that fails or waits longer than callTimeout on a member is answered by the next eligible one
 * at once (so a caller waits at most callTimeout per member while a fault is being detected,
 * and not at all once the member is tripped), and counts against the member's breaker
 * (Member). Refusals that are not backend failures (bad arguments, a full exact window) pass
 * through unchanged.
 *
 * The chain's thread (one scheduled executor) owns probes, latency checks, recovery and replay.
 * Asynchronous completions hop back onto it, so the probe counters in Member are confined to it.
 *
 * Recovery is replay first, then UP: while a member's backlog is replayed, writes still go to
 * its fallback; calls that picked the fallback just before the switch journal their events a
 * moment later, and the next tick replays them (the writer's backlog is replayed on every tick).
 */
public final class Chain {

  /** The most members of a chain (the journal's bit sets are ints). */
  public static final int MAX_MEMBERS = 8;

  private static final System.Logger LOG = System.getLogger("io.windowpane.failover");
  private static final String PROBE_COUNTER = "wp-failover-probe";
  private static final int REPLAY_IN_FLIGHT = 256;
  /** A trip within this many probe intervals of a recovery is a flap (3 s by default). */
  static final long FLAP_WINDOW_PROBES = 30;

  final Member[] members;
  final FailoverSettings settings;
  private final int[] needsWhenTakenBy;
  private final String nodeId;
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong journalSize = new AtomicLong();
  final Journal.Counters counters = new Journal.Counters();
  private final AtomicLong trips = new AtomicLong();
  private final AtomicLong recoveries = new AtomicLong();
  final AtomicLong droppedReleases = new AtomicLong();
  private final List<Replayable> replayables = new CopyOnWriteArrayList<>();
  private final CounterStore[] probeCounters;
  private final ScheduledThreadPoolExecutor thread;
  private volatile boolean closed;

  public Chain(List<Engine> engines, FailoverSettings settings) {
    this.settings = settings;
    this.members = new Member[engines.size()];
    Set<String> names = new HashSet<>();
    long now = settings.clock().millis();
    for (int i = 0; i < members.length; i++) {
      Engine e = engines.get(i);
      String name = names.add(e.name()) ? e.name() : e.name() + "-" + (i + 1);
      names.add(name);
      members[i] = new Member(i, e, name, settings.latencyWindowMillis(),
          FLAP_WINDOW_PROBES * settings.probeIntervalMillis(), now);
    }
    for (Member m : members) {
      if (m.engine instanceof DeferredEngine d && !d.connected()) {
        startDown(m, d);
      }
    }
    this.needsWhenTakenBy = new int[members.length];
    for (int by = 0; by < members.length; by++) {
      for (int j = 0; j < by; j++) {
        if (members[j].replays) {
          needsWhenTakenBy[by] |= 1 << j;
        }
      }
    }
    this.probeCounters = new CounterStore[members.length];
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
    if (settings.background()) {
      thread.scheduleWithFixedDelay(this::tick, settings.probeIntervalMillis(),
          settings.probeIntervalMillis(), TimeUnit.MILLISECONDS);
      if (settings.slowWindowsToTrip() > 0) {
        thread.scheduleAtFixedRate(this::checkLatency, settings.latencyWindowMillis(),
            settings.latencyWindowMillis(), TimeUnit.MILLISECONDS);
      }
    }
  }

  // ---- stores -------------------------------------------------------------------------------

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

  private Journal journal(long expiryMillis) {
    return new Journal(nodeId, sequence, journalSize, settings.journalLimit(), expiryMillis,
        counters);
  }

  private <T extends Replayable> T register(T store) {
    replayables.add(store);
    return store;
  }

  /** A store whose fallbacks' events can be replayed. */
  interface Replayable {
    Journal journal();

    CompletionStage<Void> replay(int member, String key, Journal.Batch batch);
  }

  // ---- routing ------------------------------------------------------------------------------

  /** The answer of member {@code member}. */
  record Answer<T>(int member, T value) {}

  /**
   * Runs {@code op} on the first eligible member from {@code from} on, falling through to the
   * next on failure or timeout; fails with the last failure when none is left.
   */
  <T> CompletableFuture<Answer<T>> route(boolean write, int from,
      IntFunction<CompletionStage<T>> op, Throwable last) {
    int i = next(write, from);
    if (i < 0) {
      return CompletableFuture.failedFuture(last != null ? last : new WindowpaneException(
          "no engine of the chain " + this + " takes " + (write ? "writes" : "reads")));
    }
    Member m = members[i];
    long t0 = System.nanoTime();
    CompletableFuture<T> f;
    try {
      f = op.apply(i).toCompletableFuture();
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    if (f.isDone() && !f.isCompletedExceptionally()) {
      m.answered(System.nanoTime() - t0); // the in-process members' path: no extra stage
      return CompletableFuture.completedFuture(new Answer<>(i, f.join()));
    }
    if (!m.inProcess && !f.isDone()) {
      f = f.copy().orTimeout(settings.callTimeoutMillis(), TimeUnit.MILLISECONDS);
    }
    return f.handle((v, e) -> {
      long nanos = System.nanoTime() - t0;
      if (e == null) {
        m.answered(nanos);
        return CompletableFuture.completedFuture(new Answer<>(i, v));
      }
      Throwable cause = unwrap(e);
      if (cause instanceof java.util.concurrent.TimeoutException) {
        cause = new WindowpaneTimeoutException(m.name
            + " did not answer within the call timeout of " + settings.callTimeoutMillis() + " ms",
            cause);
      }
      if (isRefusal(cause)) {
        m.answered(nanos);
        return CompletableFuture.<Answer<T>>failedFuture(cause);
      }
      Health to = m.failed(cause, write, nanos, settings.failuresToTrip());
      if (to != null) {
        trip(m, to, to == Health.READ_ONLY ? Signal.WRITE_ERRORS : Signal.FAILURES,
            settings.failuresToTrip() + " failed calls in a row, the last: " + cause);
      }
      return route(write, i + 1, op, cause);
    }).thenCompose(Function.identity());
  }

  private int next(boolean write, int from) {
    for (int i = from; i < members.length; i++) {
      Health h = members[i].health;
      if (h == Health.UP || (!write && h == Health.READ_ONLY)) {
        return i;
      }
    }
    return -1;
  }

  /** Journals events taken by member {@code by} (a no-op for the first member). */
  void journal(Journal journal, String key, int by, long count, double[] values) {
    if (by > 0) {
      journal.add(key, settings.clock().millis(), by, needsWhenTakenBy[by], count, values);
    }
  }

  static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new WindowpaneException(cause.toString(), cause);
    }
  }

  static Throwable unwrap(Throwable e) {
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  static boolean isRefusal(Throwable e) {
    return e instanceof IllegalArgumentException || e instanceof CapacityExceededException
        || e instanceof UnsupportedOperationException;
  }

  // ---- health -------------------------------------------------------------------------------

  private void trip(Member m, Health to, Signal signal, String reason) {
    Health from = m.trip(to, signal, settings.clock().millis());
    if (from == null) {
      return;
    }
    trips.incrementAndGet();
    String active = activeEngine();
    LOG.log(Level.WARNING, "failover: {0} {1} -> {2} ({3}: {4}); writes now go to {5}", m.name,
        from, to, signal, reason, active);
    notify(l -> l.healthChanged(m.name, from, to, signal + ": " + reason));
  }

  /** A member that could not connect at start: DOWN until it connects and recovers. */
  private void startDown(Member m, DeferredEngine d) {
    m.trip(Health.DOWN, Signal.CONNECT, settings.clock().millis());
    LOG.log(Level.WARNING, "failover: {0} starts DOWN, it could not connect ({1}); it joins once "
        + "it answers, writes go to {2} meanwhile", m.name, d.lastFailure(), activeEngine());
    notify(l -> l.healthChanged(m.name, Health.UP, Health.DOWN,
        Signal.CONNECT + ": " + d.lastFailure()));
  }

  private void notify(java.util.function.Consumer<Failover.Listener> call) {
    try {
      call.accept(settings.listener());
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "failover: the listener threw", e);
    }
  }

  /** One round: probe every remote member, recover those that pass, replay the writer's backlog. */
  CompletableFuture<Void> tick() {
    if (closed) {
      return CompletableFuture.completedFuture(null);
    }
    List<CompletableFuture<?>> work = new ArrayList<>();
    for (Member m : members) {
      if (m.inProcess || m.probeInFlight) {
        continue;
      }
      m.probeInFlight = true;
      CompletableFuture<Void> done;
      if (m.health == Health.UP) {
        done = healthProbe(m);
      } else if (m.recovering) {
        done = CompletableFuture.completedFuture(null);
      } else {
        done = (m.health == Health.READ_ONLY ? healthProbe(m)
            : CompletableFuture.completedFuture((Void) null))
            .thenCompose(x -> m.health == Health.DOWN || m.health == Health.READ_ONLY
                ? recoveryProbe(m) : CompletableFuture.completedFuture(null));
      }
      work.add(done.whenCompleteAsync((x, e) -> m.probeInFlight = false, thread));
    }
    int w = next(true, 0);
    if (w >= 0 && members[w].replays) {
      Member writer = members[w];
      CompletableFuture<Long> replay = replayInto(w);
      if (replay != null) {
        work.add(replay.exceptionally(e -> {
          logReplayFailure(writer, e);
          return 0L;
        }));
      }
    }
    return CompletableFuture.allOf(work.toArray(new CompletableFuture<?>[0]));
  }

  private String lastReplayFailure = "";
  private long lastReplayFailureNanos;

  /** Logs a failed replay of stragglers: each new cause at once, a repeated one every 10 s. */
  private void logReplayFailure(Member m, Throwable e) {
    String cause = String.valueOf(unwrap(e));
    long now = System.nanoTime();
    if (!cause.equals(lastReplayFailure) || now - lastReplayFailureNanos > 10_000_000_000L) {
      lastReplayFailure = cause;
      lastReplayFailureNanos = now;
      LOG.log(Level.WARNING, "failover: replay into {0} failed, retried next round: {1}",
          m.name, cause);
    }
  }

  private CompletableFuture<Void> healthProbe(Member m) {
    return timed(m.engine.probe(), settings.probeTimeoutMillis())
        .handleAsync((v, e) -> {
          if (e == null) {
            m.probePassed();
          } else if (++m.probeFailuresInARow >= settings.probeFailuresToTrip()) {
            trip(m, Health.DOWN, Signal.PROBES,
                m.probeFailuresInARow + " failed probes in a row, the last: " + unwrap(e));
          }
          return null;
        }, thread);
  }

  private CompletableFuture<Void> recoveryProbe(Member m) {
    long t0 = System.nanoTime();
    CompletableFuture<Long> write;
    try {
      write = timed(probeCounters[m.index].addAsync(nodeId, 1), settings.probeTimeoutMillis());
    } catch (RuntimeException e) {
      write = CompletableFuture.failedFuture(e);
    }
    return write.<CompletableFuture<Void>>handleAsync((v, e) -> {
      long millis = (System.nanoTime() - t0) / 1_000_000;
      if (e != null || millis > settings.latencyThresholdMillis()) {
        m.recoveryProbesInARow = 0;
        return CompletableFuture.<Void>completedFuture(null);
      }
      m.probePassed();
      int needed = m.probesToRecover(settings.probesToRecover(),
          settings.probesToRecoverDouble());
      if (++m.recoveryProbesInARow < needed) {
        return CompletableFuture.<Void>completedFuture(null);
      }
      CompletableFuture<Long> replay = replayInto(m.index);
      if (replay == null) { // an earlier replay into it still runs: recover next round
        m.recoveryProbesInARow--;
        return CompletableFuture.<Void>completedFuture(null);
      }
      m.recovering = true;
      int passed = m.recoveryProbesInARow;
      return replay.<Void>handleAsync((events, re) -> {
        m.recovering = false;
        if (re != null) {
          m.recoveryProbesInARow = 0;
          LOG.log(Level.WARNING, "failover: replay into {0} failed, it stays {1}: {2}", m.name,
              m.health, unwrap(re));
          return null;
        }
        Health from = m.recover(settings.clock().millis());
        recoveries.incrementAndGet();
        LOG.log(Level.INFO, "failover: {0} {1} -> UP after {2} probes in a row, {3} events "
            + "replayed; writes now go to {4}", m.name, from, passed, events, activeEngine());
        notify(l -> l.healthChanged(m.name, from, Health.UP,
            passed + " probes passed in a row"));
        return null;
      }, thread);
    }, thread).thenCompose(Function.identity());
  }

  /** Checks each UP member's latency p99 over the last window. */
  void checkLatency() {
    for (Member m : members) {
      if (m.inProcess || m.health != Health.UP) {
        continue;
      }
      double p99 = m.latencyP99();
      if (Double.isNaN(p99)) {
        continue;
      }
      if (p99 <= settings.latencyThresholdMillis()) {
        m.slowWindowsInARow = 0;
      } else if (++m.slowWindowsInARow >= settings.slowWindowsToTrip()) {
        trip(m, Health.READ_ONLY, Signal.LATENCY, String.format(
            "call latency p99 %.1f ms above %d ms in %d windows of %d ms in a row", p99,
            settings.latencyThresholdMillis(), m.slowWindowsInARow,
            settings.latencyWindowMillis()));
      }
    }
  }

  <T> CompletableFuture<T> timed(CompletionStage<T> stage, long millis) {
    return stage.toCompletableFuture().copy().orTimeout(millis, TimeUnit.MILLISECONDS);
  }

  // ---- replay -------------------------------------------------------------------------------

  /**
   * Replays every batch member {@code m} still needs; completes with the events sent. One replay
   * per member at a time: null while one is still running (the batches it sent would otherwise
   * go out again).
   */
  private CompletableFuture<Long> replayInto(int m) {
    if (!members[m].replays) {
      return CompletableFuture.completedFuture(0L);
    }
    if (!members[m].replaying.compareAndSet(false, true)) {
      return null;
    }
    return replayBatches(m).whenComplete((x, e) -> members[m].replaying.set(false));
  }

  private CompletableFuture<Long> replayBatches(int m) {
    long now = settings.clock().millis();
    List<Object[]> all = new ArrayList<>();
    for (Replayable r : replayables) {
      for (Journal.Pending p : r.journal().pendingFor(m, now)) {
        all.add(new Object[] {r, p});
      }
    }
    if (all.isEmpty()) {
      return CompletableFuture.completedFuture(0L);
    }
    AtomicLong events = new AtomicLong();
    return sendFrom(m, all, 0, events).thenApply(x -> {
      notify(l -> l.replayed(members[m].name, events.get()));
      return events.get();
    });
  }

  private CompletableFuture<Void> sendFrom(int m, List<Object[]> all, int from,
      AtomicLong events) {
    if (from >= all.size()) {
      return CompletableFuture.completedFuture(null);
    }
    int to = Math.min(all.size(), from + REPLAY_IN_FLIGHT);
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    for (int i = from; i < to; i++) {
      Replayable r = (Replayable) all.get(i)[0];
      Journal.Pending p = (Journal.Pending) all.get(i)[1];
      CompletableFuture<Void> f;
      try {
        f = timed(r.replay(m, p.key(), p.batch()), Math.max(settings.callTimeoutMillis(),
            settings.probeTimeoutMillis()) * 10);
      } catch (RuntimeException e) {
        f = CompletableFuture.failedFuture(e);
      }
      sent.add(f.handle((v, e) -> {
        if (e == null) {
          events.addAndGet(p.batch().count);
          r.journal().delivered(p.key(), p.batch(), m, false);
          return null;
        }
        Throwable cause = unwrap(e);
        if (isRefusal(cause)) { // e.g. an exact window past its bound: sent again, refused again
          LOG.log(Level.WARNING, "failover: {0} refused a replay of {1} events of key {2}, "
              + "counted as lost: {3}", members[m].name, p.batch().count, p.key(), cause);
          r.journal().delivered(p.key(), p.batch(), m, true);
          return null;
        }
        throw new CompletionException(cause);
      }));
    }
    return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]))
        .thenCompose(x -> sendFrom(m, all, to, events));
  }

  // ---- state --------------------------------------------------------------------------------

  /** The index of the member named {@code name}, or -1. */
  int memberIndex(String name) {
    for (Member m : members) {
      if (m.name.equals(name)) {
        return m.index;
      }
    }
    return -1;
  }

  public String activeEngine() {
    int w = next(true, 0);
    return w < 0 ? "none" : members[w].name;
  }

  public boolean degraded() {
    return next(true, 0) != 0;
  }

  public List<MemberStatus> status() {
    List<MemberStatus> out = new ArrayList<>();
    for (Member m : members) {
      long pending = 0;
      for (Replayable r : replayables) {
        pending += r.journal().pendingEvents(m.index);
      }
      out.add(new MemberStatus(m.name, m.health, m.signals(), m.sinceMillis(), m.replays,
          pending));
    }
    return out;
  }

  public Failover.Stats stats() {
    return new Failover.Stats(trips.get(), recoveries.get(), counters.replayed.get(),
        counters.dropped.get(), counters.lost.get(), counters.journaled.get(),
        droppedReleases.get());
  }

  /** Decides {@code requests} all or nothing on one member (ChainGroups). */
  public CompletionStage<Optional<io.windowpane.GroupDecision>> tryAcquireAllOrNothingAsync(
      List<io.windowpane.spi.GroupRequest> requests) {
    return ChainGroups.acquire(this, requests);
  }

  public CompletionStage<Void> probe() {
    return next(true, 0) >= 0 ? CompletableFuture.completedFuture(null)
        : CompletableFuture.failedFuture(
            new WindowpaneException("no engine of the chain " + this + " takes writes"));
  }

  public void checkNow() {
    try {
      thread.submit(() -> {
        checkLatency();
        return tick();
      }).get().get(settings.probeTimeoutMillis() + 30_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WindowpaneException("interrupted", e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new WindowpaneException("failover check failed: " + unwrap(e), unwrap(e));
    }
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
}
