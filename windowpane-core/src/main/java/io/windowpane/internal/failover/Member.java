package io.windowpane.internal.failover;

import io.windowpane.Decision;
import io.windowpane.Failover.Health;
import io.windowpane.Failover.Signal;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowpaneTimeoutException;
import io.windowpane.internal.ApiAccess;
import io.windowpane.internal.local.LocalEngine;
import io.windowpane.spi.Engine;
import io.windowpane.spi.StatsStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/*
 * One engine of a chain and its breaker.
 *
 * Health moves UP -> READ_ONLY -> DOWN on signals, and back to UP only through Chain's recovery
 * (probes in a row, then replay). Transitions happen under this object's monitor and are
 * reported once each; the hot path reads `health` (volatile) and bumps two atomics.
 *
 * Failures in a row: every failed or timed-out call increments `failuresInARow`, every answered
 * call resets it. The streak that reaches the threshold trips DOWN, unless it was made of writes
 * answered with an error (not timeouts) while a health probe (a read) passed after the streak
 * began: then the backend answers reads but refuses writes, and the member goes READ_ONLY.
 *
 * Flapping: a member that trips again within the flap window of its last recovery needs twice
 * the probes to recover again (up to 32 times), so a backend that answers probes but fails under
 * load is given less and less traffic instead of being switched to and from every few hundred
 * milliseconds; a trip after a calm flap window starts from the base counts again.
 *
 * Latency: each answered or timed-out call's time goes into a histogram window of
 * windowpane's own local engine (latencyWindow long, 10 panes); Chain reads its p99 once per
 * window.
 */
final class Member {

  final int index;
  final Engine engine;
  final String name;
  final boolean inProcess;
  final boolean replays;
  final long callTimeoutMillis;
  final long probeTimeoutMillis;

  volatile Health health = Health.UP;
  private final EnumSet<Signal> signals = EnumSet.noneOf(Signal.class);
  private volatile long sinceMillis;

  private final AtomicInteger failuresInARow = new AtomicInteger();
  final java.util.concurrent.atomic.AtomicBoolean replaying =
      new java.util.concurrent.atomic.AtomicBoolean();
  private volatile boolean streakAllWriteErrors = true;
  private volatile long streakStartNanos;
  private volatile long lastProbeOkNanos;

  // the chain's thread only
  int flaps; // trips soon after a recovery, in a row: each doubles the probes needed to recover
  private boolean recovered;
  private long recoveredMillis;
  int probeFailuresInARow;
  int recoveryProbesInARow;
  int slowWindowsInARow;
  boolean probeInFlight;
  boolean recovering;

  private final StatsStore latency;
  private final Decision[] stamped = new Decision[1024]; // allowed answers by remaining, lazily

  /** At most 2^5 = 32 times the probes. */
  static final int MAX_FLAPS = 5;

  private final long flapWindowMillis;

  Member(int index, Engine engine, String name, long callTimeoutMillis, long probeTimeoutMillis,
      long latencyWindowMillis, long flapWindowMillis, long nowMillis) {
    this.callTimeoutMillis = callTimeoutMillis;
    this.probeTimeoutMillis = probeTimeoutMillis;
    this.flapWindowMillis = flapWindowMillis;
    this.index = index;
    this.engine = engine;
    this.name = name;
    this.inProcess = engine.inProcess();
    this.replays = engine.replays();
    this.sinceMillis = nowMillis;
    this.latency = new LocalEngine(io.windowpane.MillisClock.system(), 4, 60_000)
        .statsStore("latency", StatsSpec.histogram(Duration.ofMillis(latencyWindowMillis), 10));
  }

  /** {@code d} stamped as answered by this member; allowed answers with small remainders cached. */
  Decision stamp(Decision d, boolean degraded) {
    if (d.allowed() && d.remaining() < stamped.length) {
      int i = (int) d.remaining();
      Decision s = stamped[i]; // benign race: any thread may fill a slot with an equal value
      if (s == null || s.degraded() != degraded) {
        s = ApiAccess.answeredBy(d, name, degraded);
        stamped[i] = s;
      }
      return s;
    }
    return ApiAccess.answeredBy(d, name, degraded);
  }

  /** A call answered after {@code nanos}. */
  void answered(long nanos) {
    if (failuresInARow.get() != 0) {
      failuresInARow.set(0);
    }
    if (!inProcess) {
      latency.record("", nanos / 1e6);
    }
  }

  /**
   * A call failed ({@code e}) or timed out after {@code nanos}; returns the health to trip to,
   * or null.
   */
  Health failed(Throwable e, boolean write, long nanos, int threshold) {
    boolean timeout = isTimeout(e);
    if (!inProcess && timeout) {
      latency.record("", nanos / 1e6);
    }
    int n = failuresInARow.incrementAndGet();
    if (n == 1) {
      streakStartNanos = System.nanoTime();
      streakAllWriteErrors = true;
    }
    if (timeout || !write) {
      streakAllWriteErrors = false;
    }
    if (n < threshold) {
      return null;
    }
    boolean readsAnswer = streakAllWriteErrors && lastProbeOkNanos - streakStartNanos > 0;
    return readsAnswer ? Health.READ_ONLY : Health.DOWN;
  }

  void probePassed() {
    lastProbeOkNanos = System.nanoTime();
    probeFailuresInARow = 0;
  }

  /** The p99 of call latency over the last window in ms, or NaN when no call was timed. */
  double latencyP99() {
    Summary s = latency.summary("");
    return s.count() == 0 ? Double.NaN : s.quantile(0.99);
  }

  /**
   * Trips to {@code to} for {@code signal} if that lowers the health; returns the previous
   * health, or null if nothing changed.
   */
  synchronized Health trip(Health to, Signal signal, long nowMillis) {
    Health from = health;
    if (to.ordinal() <= from.ordinal()) {
      if (from != Health.UP) {
        signals.add(signal); // a second signal while tripped lengthens recovery
      }
      return null;
    }
    if (from == Health.UP) {
      signals.clear();
      boolean flap = recovered && nowMillis - recoveredMillis < flapWindowMillis;
      flaps = flap ? Math.min(flaps + 1, MAX_FLAPS) : 0;
    }
    signals.add(signal);
    health = to;
    sinceMillis = nowMillis;
    failuresInARow.set(0);
    recoveryProbesInARow = 0;
    slowWindowsInARow = 0;
    return from;
  }

  /** Back to UP; returns the previous health. */
  synchronized Health recover(long nowMillis) {
    Health from = health;
    recovered = true;
    recoveredMillis = nowMillis;
    health = Health.UP;
    signals.clear();
    sinceMillis = nowMillis;
    failuresInARow.set(0);
    probeFailuresInARow = 0;
    recoveryProbesInARow = 0;
    slowWindowsInARow = 0;
    return from;
  }

  /**
   * Probes in a row needed to recover: {@code single}, or {@code twice} after a trip by two or
   * more signals, doubled for each trip that came within the flap window of a recovery.
   */
  synchronized int probesToRecover(int single, int twice) {
    return (signals.size() >= 2 ? twice : single) << flaps;
  }

  synchronized List<Signal> signals() {
    return new ArrayList<>(signals);
  }

  long sinceMillis() {
    return sinceMillis;
  }

  static boolean isTimeout(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException || t instanceof WindowpaneTimeoutException) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return name + ":" + health;
  }
}
