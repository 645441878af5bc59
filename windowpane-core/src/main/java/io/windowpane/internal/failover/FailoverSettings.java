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
    long journalLimit, MillisClock clock, Failover.Listener listener, boolean background,
    boolean callTimeoutSet, boolean probeTimeoutSet,
    java.util.Map<String, MemberTimeouts> memberTimeouts) {

  /** One member's own timeouts (0: not set). */
  public record MemberTimeouts(long callTimeoutMillis, long probeTimeoutMillis) {}

  /**
   * The defaults every setter of {@link Failover.Builder} states; the call and probe timeouts
   * are those of an engine that does not say otherwise ({@code Engine.failoverTimeout()}).
   */
  public static final FailoverSettings DEFAULTS = new FailoverSettings(100, 100, 2, 100, 3, 50,
      50, 3, 2, 5, 1.0, OnFailure.ERROR, 1_000_000, MillisClock.system(),
      new Failover.Listener() {}, true, false, false, java.util.Map.of());

  /** Member {@code name}'s call timeout: its own, else the chain's if set, else its engine's. */
  long callTimeoutMillis(String name, io.windowpane.spi.Engine engine) {
    MemberTimeouts own = memberTimeouts.get(name);
    if (own != null && own.callTimeoutMillis() > 0) {
      return own.callTimeoutMillis();
    }
    return callTimeoutSet ? callTimeoutMillis : engine.failoverTimeout().toMillis();
  }

  /** Member {@code name}'s probe timeout: its own, else the chain's if set, else its engine's. */
  long probeTimeoutMillis(String name, io.windowpane.spi.Engine engine) {
    MemberTimeouts own = memberTimeouts.get(name);
    if (own != null && own.probeTimeoutMillis() > 0) {
      return own.probeTimeoutMillis();
    }
    return probeTimeoutSet ? probeTimeoutMillis : engine.failoverTimeout().toMillis();
  }
}
