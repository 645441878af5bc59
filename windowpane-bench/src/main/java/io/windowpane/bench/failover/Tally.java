package io.windowpane.bench.failover;

import io.windowpane.Decision;
import java.util.concurrent.atomic.AtomicLongArray;

/*
 * Design note: which events a Redis must hold after a trial, per key, from who answered each call
 * and when it ran relative to the fault.
 *
 * Kill. The killed server's data is gone (no persistence), so the new server holds what the
 * local fallback allowed (replayed into it) and what Redis allowed after the kill. A decision
 * answered by Redis that started after kill() returned (the process had exited) was answered by
 * the new server; one that started earlier, by the old one. So for the limiter the expectation is
 * exact: allowedByLocal + allowedByPrimaryAfterFault, but for what the fallback allowed during a
 * false trip before the kill: replayed into the old server if Redis recovered before the kill
 * (then gone with it), into the new one if not, so those bracket the expectation from above
 * only. For the counter, add() does not say who
 * answered, so the count is bracketed: at least the adds that started after kill() returned, at
 * most those plus the adds in flight across the kill (and, after a false trip before the kill,
 * the adds made while Redis was tripped: the fallback took them, and replays them into the new
 * server).
 *
 * Hang. The server keeps its data, so it holds everything allowed (or added) by anyone.
 *
 * In both, a call that waited past the call timeout may have been applied by Redis as well as
 * answered by the fallback (docs/failover.md, "What replay cannot fix"): counted twice, stricter,
 * never looser. Such calls are counted here ("slow": they took at least the call timeout), and
 * bound the surplus a check may find. So are, after a kill, the calls in flight across it that
 * the fallback answered: Lettuce re-sends what it had written and not seen answered once it
 * reconnects, here to the new server. A shortfall is lost events: nothing explains it.
 */

/** Per key: what each engine allowed and added, split at the fault. */
final class Tally {

  private final long slowNanos;
  private static final long NONE = Long.MIN_VALUE;
  private volatile long faultStartNanos = NONE;
  private volatile long faultEndNanos = NONE;

  final AtomicLongArray allowed;
  final AtomicLongArray slowAllowed;
  final AtomicLongArray allowedByLocal;
  final AtomicLongArray slowAllowedByLocal;
  final AtomicLongArray allowedByLocalAcrossFault;
  final AtomicLongArray allowedByLocalBeforeFault;
  final AtomicLongArray allowedByPrimaryAfterFault;
  final AtomicLongArray adds;
  final AtomicLongArray slowAdds;
  final AtomicLongArray addsAfterFault;
  final AtomicLongArray addsAcrossFault;
  final AtomicLongArray addsBeforeFaultWhileTripped;
  final AtomicLongArray slowAddsAfterFault;

  Tally(int keys, long slowNanos) {
    this.slowNanos = slowNanos;
    allowed = new AtomicLongArray(keys);
    slowAllowed = new AtomicLongArray(keys);
    allowedByLocal = new AtomicLongArray(keys);
    allowedByLocalBeforeFault = new AtomicLongArray(keys);
    slowAllowedByLocal = new AtomicLongArray(keys);
    allowedByLocalAcrossFault = new AtomicLongArray(keys);
    allowedByPrimaryAfterFault = new AtomicLongArray(keys);
    adds = new AtomicLongArray(keys);
    slowAdds = new AtomicLongArray(keys);
    addsAfterFault = new AtomicLongArray(keys);
    addsAcrossFault = new AtomicLongArray(keys);
    addsBeforeFaultWhileTripped = new AtomicLongArray(keys);
    slowAddsAfterFault = new AtomicLongArray(keys);
  }

  /** The fault is being injected from now on (the signal is about to be sent). */
  void faultStart() {
    faultStartNanos = System.nanoTime();
  }

  /** The call injecting the fault has returned (a killed process has exited). */
  void faultEnd() {
    faultEndNanos = System.nanoTime();
  }

  /** Started before the fault call returned, ended after it began. */
  private boolean acrossFault(long t0, long t1) {
    long start = faultStartNanos;
    return start != NONE && t1 - start > 0 && !afterFault(t0);
  }

  private boolean afterFault(long t0) {
    long end = faultEndNanos;
    return end != NONE && t0 - end > 0;
  }

  int keys() {
    return allowed.length();
  }

  /** A decision on key {@code k} from {@code t0} to {@code t1}. */
  void decision(int k, long t0, long t1, Decision d) {
    if (!d.allowed()) {
      return;
    }
    boolean slow = t1 - t0 >= slowNanos;
    allowed.incrementAndGet(k);
    if (slow) {
      slowAllowed.incrementAndGet(k);
    }
    int engine = Timeline.engineIndex(d);
    if (engine == Timeline.LOCAL) {
      allowedByLocal.incrementAndGet(k);
      if (faultStartNanos == NONE) { // a false trip before the fault
        allowedByLocalBeforeFault.incrementAndGet(k);
      }
      if (slow) {
        slowAllowedByLocal.incrementAndGet(k);
      } else if (acrossFault(t0, t1)) {
        allowedByLocalAcrossFault.incrementAndGet(k);
      }
    } else if (engine == Timeline.PRIMARY && afterFault(t0)) {
      allowedByPrimaryAfterFault.incrementAndGet(k);
    }
  }

  /**
   * A successful add on key {@code k} from {@code t0} to {@code t1}; {@code tripped}: the chain
   * had Redis tripped when it started (a false trip before the fault: the add may have gone to
   * the local engine, and then into the new server by replay).
   */
  void added(int k, long t0, long t1, boolean tripped) {
    boolean slow = t1 - t0 >= slowNanos;
    adds.incrementAndGet(k);
    if (slow) {
      slowAdds.incrementAndGet(k);
    }
    long start = faultStartNanos;
    if (start == NONE) {
      if (tripped) {
        addsBeforeFaultWhileTripped.incrementAndGet(k);
      }
      return;
    }
    if (afterFault(t0)) {
      addsAfterFault.incrementAndGet(k);
      if (slow) {
        slowAddsAfterFault.incrementAndGet(k);
      }
    } else if (acrossFault(t0, t1)) {
      addsAcrossFault.incrementAndGet(k);
    }
  }

  static long sum(AtomicLongArray a) {
    long s = 0;
    for (int i = 0; i < a.length(); i++) {
      s += a.get(i);
    }
    return s;
  }
}
