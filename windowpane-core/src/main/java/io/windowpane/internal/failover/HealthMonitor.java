package io.windowpane.internal.failover;

import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import io.windowpane.Failover.Signal;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.DeferredEngine;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/*
 * Health: the chain's thread's work, one round (tick) every probe interval.
 *
 * An UP member gets a health probe (Engine.probe, a read); probeFailuresToTrip failures in a
 * row trip it DOWN. A tripped member gets a recovery probe, a small real write (the counter
 * wp-failover-probe), every round; after probesToRecover passes in a row (answered within the
 * timeout and the latency threshold; more after a trip by two signals or a flap, see Member) its
 * backlog is replayed (Replayer.catchUp) and only then does it take calls again. Latency: each
 * UP member's call-latency p99 over the last window, slowWindowsToTrip slow windows in a row trip
 * it READ_ONLY. Every state change is logged once and told to the Listener.
 *
 * Asynchronous completions hop back onto the chain's thread (`thread`), so the probe counters in
 * Member are confined to it.
 */
final class HealthMonitor {

  private static final System.Logger LOG = System.getLogger("io.windowpane.failover");

  private final Member[] members;
  private final FailoverSettings settings;
  private final CounterStore[] probeCounters;
  private final String nodeId;
  private final Executor thread;
  private Router router; // set once, right after construction
  private Replayer replayer;
  final AtomicLong trips = new AtomicLong();
  final AtomicLong recoveries = new AtomicLong();

  HealthMonitor(Member[] members, FailoverSettings settings, CounterStore[] probeCounters,
      String nodeId, Executor thread) {
    this.members = members;
    this.settings = settings;
    this.probeCounters = probeCounters;
    this.nodeId = nodeId;
    this.thread = thread;
  }

  void wire(Router router, Replayer replayer) {
    this.router = router;
    this.replayer = replayer;
  }

  String activeEngine() {
    int w = router.next(true, 0);
    return w < 0 ? "none" : members[w].name;
  }

  void trip(Member m, Health to, Signal signal, String reason) {
    Health from = m.trip(to, signal, settings.clock().millis());
    if (from == null) {
      return;
    }
    trips.incrementAndGet();
    LOG.log(Level.WARNING, "failover: {0} {1} -> {2} ({3}: {4}); writes now go to {5}", m.name,
        from, to, signal, reason, activeEngine());
    notify(l -> l.healthChanged(m.name, from, to, signal + ": " + reason));
  }

  /** A member that could not connect at start: DOWN until it connects and recovers. */
  void startDown(Member m, DeferredEngine d) {
    m.trip(Health.DOWN, Signal.CONNECT, settings.clock().millis());
    LOG.log(Level.WARNING, "failover: {0} starts DOWN, it could not connect ({1}); it joins once "
        + "it answers, writes go to {2} meanwhile", m.name, d.lastFailure(), activeEngine());
    notify(l -> l.healthChanged(m.name, Health.UP, Health.DOWN,
        Signal.CONNECT + ": " + d.lastFailure()));
  }

  void notify(java.util.function.Consumer<Failover.Listener> call) {
    try {
      call.accept(settings.listener());
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "failover: the listener threw", e);
    }
  }

  /** One round: probe every remote member, recover those that pass, replay the writer's backlog. */
  CompletableFuture<Void> tick() {
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
    int w = router.next(true, 0);
    if (w >= 0 && members[w].replays) {
      CompletableFuture<Long> stragglers = replayer.stragglers(w);
      if (stragglers != null) {
        work.add(stragglers);
      }
    }
    return CompletableFuture.allOf(work.toArray(new CompletableFuture<?>[0]));
  }

  private CompletableFuture<Void> healthProbe(Member m) {
    CompletableFuture<Void> probe;
    try {
      probe = Router.timed(m.engine.probe(), m.probeTimeoutMillis);
    } catch (RuntimeException e) {
      probe = CompletableFuture.failedFuture(e);
    }
    return probe.handleAsync((v, e) -> {
      if (e == null) {
        m.probePassed();
      } else if (++m.probeFailuresInARow >= settings.probeFailuresToTrip()) {
        trip(m, Health.DOWN, Signal.PROBES,
            m.probeFailuresInARow + " failed probes in a row, the last: " + Router.unwrap(e));
      }
      return null;
    }, thread);
  }

  private CompletableFuture<Void> recoveryProbe(Member m) {
    long t0 = System.nanoTime();
    CompletableFuture<Long> write;
    try {
      write = Router.timed(probeCounters[m.index].addAsync(nodeId, 1), m.probeTimeoutMillis);
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
      CompletableFuture<Long> replay = replayer.catchUp(m.index);
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
              m.health, Router.unwrap(re));
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
}
