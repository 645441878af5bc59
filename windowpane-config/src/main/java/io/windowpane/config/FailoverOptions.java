package io.windowpane.config;

import io.windowpane.Failover;
import java.time.Duration;
import java.util.Map;

/**
 * The {@code engine.failover} block, validated against the ranges of {@link Failover.Builder}
 * (the reader reports a value out of range with its line; the builder would only throw). The
 * defaults are the library's; {@code FailoverOptionsTest} holds them to it. {@code fleetShare}
 * is 1 / {@code fleetNodes} when the file gives nodes. {@code probeTimeout} and
 * {@code callTimeout} are null when the file gives none: each member then has its engine's own
 * ({@code Engine.failoverTimeout()}: 100 ms, etcd 500 ms); {@code members} holds a member's own
 * timeouts by engine name.
 */
record FailoverOptions(Duration probeInterval, Duration probeTimeout, int probeFailuresToTrip,
    Duration callTimeout, int failuresToTrip, Duration latencyThreshold, Duration latencyWindow,
    int slowWindowsToTrip, int probesToRecover, int probesToRecoverAfterDouble,
    double fleetShare, long journalLimit, Map<String, MemberTimeouts> members) {

  /** One member's {@code callTimeout} and {@code probeTimeout}. */
  record MemberTimeouts(Duration callTimeout, Duration probeTimeout) {}

  static final FailoverOptions DEFAULTS = new FailoverOptions(Duration.ofMillis(100), null, 2,
      null, 3, Duration.ofMillis(50), Duration.ofMillis(50), 3, 2, 5, 1.0, 1_000_000, Map.of());

  /** Every option set on {@code b}. */
  Failover.Builder applyTo(Failover.Builder b) {
    if (probeTimeout != null) {
      b.probeTimeout(probeTimeout);
    }
    if (callTimeout != null) {
      b.callTimeout(callTimeout);
    }
    members.forEach((name, t) -> b.memberTimeouts(name, t.callTimeout(), t.probeTimeout()));
    return b.probeInterval(probeInterval)
        .probeFailuresToTrip(probeFailuresToTrip)
        .failuresToTrip(failuresToTrip)
        .latencyThreshold(latencyThreshold)
        .latencyWindow(latencyWindow)
        .slowWindowsToTrip(slowWindowsToTrip)
        .probesToRecover(probesToRecover, probesToRecoverAfterDouble)
        .fleetShare(fleetShare)
        .journalLimit(journalLimit);
  }
}
