package io.windowpane.config;

import io.windowpane.Failover;
import java.time.Duration;

/**
 * The {@code engine.failover} block, validated against the ranges of {@link Failover.Builder}
 * (the reader reports a value out of range with its line; the builder would only throw). The
 * defaults are the library's; {@code FailoverOptionsTest} holds them to it. {@code fleetShare}
 * is 1 / {@code fleetNodes} when the file gives nodes.
 */
record FailoverOptions(Duration probeInterval, Duration probeTimeout, int probeFailuresToTrip,
    Duration callTimeout, int failuresToTrip, Duration latencyThreshold, Duration latencyWindow,
    int slowWindowsToTrip, int probesToRecover, int probesToRecoverAfterDouble,
    double fleetShare, long journalLimit) {

  static final FailoverOptions DEFAULTS = new FailoverOptions(Duration.ofMillis(100),
      Duration.ofMillis(100), 2, Duration.ofMillis(100), 3, Duration.ofMillis(50),
      Duration.ofMillis(50), 3, 2, 5, 1.0, 1_000_000);

  /** Every option set on {@code b}. */
  Failover.Builder applyTo(Failover.Builder b) {
    return b.probeInterval(probeInterval)
        .probeTimeout(probeTimeout)
        .probeFailuresToTrip(probeFailuresToTrip)
        .callTimeout(callTimeout)
        .failuresToTrip(failuresToTrip)
        .latencyThreshold(latencyThreshold)
        .latencyWindow(latencyWindow)
        .slowWindowsToTrip(slowWindowsToTrip)
        .probesToRecover(probesToRecover, probesToRecoverAfterDouble)
        .fleetShare(fleetShare)
        .journalLimit(journalLimit);
  }
}
