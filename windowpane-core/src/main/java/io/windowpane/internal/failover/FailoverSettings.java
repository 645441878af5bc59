package io.windowpane.internal.failover;

import io.windowpane.Failover;
import io.windowpane.MillisClock;
import io.windowpane.OnFailure;

/** The options of a failover chain, validated by {@link Failover.Builder}; defaults here. */
public record FailoverSettings(long probeIntervalMillis, long probeTimeoutMillis,
    int probeFailuresToTrip, long callTimeoutMillis, int failuresToTrip,
    long latencyThresholdMillis, long latencyWindowMillis, int slowWindowsToTrip,
    int probesToRecover, int probesToRecoverDouble, double fleetShare, OnFailure onFailure,
    long journalLimit, MillisClock clock, Failover.Listener listener, boolean background) {

  /** The builder's working copy. */
  public static final class Mutable {
    public long probeIntervalMillis = 100;
    public long probeTimeoutMillis = 100;
    public int probeFailuresToTrip = 2;
    public long callTimeoutMillis = 100;
    public int failuresToTrip = 3;
    public long latencyThresholdMillis = 50;
    public long latencyWindowMillis = 50;
    public int slowWindowsToTrip = 3;
    public int probesToRecover = 2;
    public int probesToRecoverDouble = 5;
    public double fleetShare = 1.0;
    public OnFailure onFailure = OnFailure.ERROR;
    public long journalLimit = 1_000_000;
    public MillisClock clock = MillisClock.system();
    public Failover.Listener listener = new Failover.Listener() {};
    public boolean background = true;

    /** An immutable copy. */
    public FailoverSettings freeze() {
      return new FailoverSettings(probeIntervalMillis, probeTimeoutMillis, probeFailuresToTrip,
          callTimeoutMillis, failuresToTrip, latencyThresholdMillis, latencyWindowMillis,
          slowWindowsToTrip, probesToRecover, probesToRecoverDouble, fleetShare, onFailure,
          journalLimit, clock, listener, background);
    }
  }
}
