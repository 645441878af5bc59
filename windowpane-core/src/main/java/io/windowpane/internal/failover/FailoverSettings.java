package io.windowpane.internal.failover;

import io.windowpane.Failover;
import io.windowpane.MillisClock;
import io.windowpane.OnFailure;

/**
 * The options of a failover chain: an immutable value, validated by {@link Failover.Builder},
 * which starts from {@link #DEFAULTS}.
 */
public record FailoverSettings(long probeIntervalMillis, long probeTimeoutMillis,
    int probeFailuresToTrip, long callTimeoutMillis, int failuresToTrip,
    long latencyThresholdMillis, long latencyWindowMillis, int slowWindowsToTrip,
    int probesToRecover, int probesToRecoverDouble, double fleetShare, OnFailure onFailure,
    long journalLimit, MillisClock clock, Failover.Listener listener, boolean background) {

  /** The defaults every setter of {@link Failover.Builder} states. */
  public static final FailoverSettings DEFAULTS = new FailoverSettings(100, 100, 2, 100, 3, 50,
      50, 3, 2, 5, 1.0, OnFailure.ERROR, 1_000_000, MillisClock.system(),
      new Failover.Listener() {}, true);
}
