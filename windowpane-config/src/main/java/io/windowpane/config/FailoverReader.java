package io.windowpane.config;

import io.windowpane.Failover;
import java.time.Duration;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code engine.failover} block with the ranges of {@link Failover.Builder}, so that a
 * value the library would refuse is reported with its line instead.
 */
final class FailoverReader {

  private static final Duration MS = Duration.ofMillis(1);
  private static final Duration TEN_MS = Duration.ofMillis(10);
  private static final Duration MINUTE = Duration.ofMinutes(1);

  private FailoverReader() {}

  static FailoverOptions read(Node node, String path, Problems problems) {
    YamlMap m = YamlMap.fields(node, path, problems, "probeInterval", "probeTimeout",
        "probeFailuresToTrip", "callTimeout", "failuresToTrip", "latencyThreshold",
        "latencyWindow", "slowWindowsToTrip", "probesToRecover", "probesToRecoverAfterDouble",
        "fleetNodes", "fleetShare", "journalLimit");
    FailoverOptions d = FailoverOptions.DEFAULTS;
    Duration latencyWindow = m.duration("latencyWindow", d.latencyWindow(), TEN_MS, MINUTE);
    if (latencyWindow.toMillis() % 10 != 0) {
      problems.at(m.value("latencyWindow"), m.path("latencyWindow") + " must be a multiple of"
          + " 10ms, was " + Durations.format(latencyWindow));
    }
    int single = (int) m.integer("probesToRecover", d.probesToRecover(), 1, 100);
    int twice = (int) m.integer("probesToRecoverAfterDouble",
        Math.max(single, d.probesToRecoverAfterDouble()), 1, 100);
    if (m.has("probesToRecoverAfterDouble") && twice < single) {
      problems.at(m.value("probesToRecoverAfterDouble"), m.path("probesToRecoverAfterDouble")
          + " must be at least probesToRecover (" + single + "), was " + twice);
    }
    double share = d.fleetShare();
    if (m.has("fleetNodes") && m.has("fleetShare")) {
      problems.at(m.keyNode("fleetShare"), m.path() + " takes fleetNodes or fleetShare, not"
          + " both");
    } else if (m.has("fleetNodes")) {
      share = 1.0 / m.integer("fleetNodes", 1, 1, 100_000);
    } else if (m.has("fleetShare")) {
      Double v = Scalars.number(m.value("fleetShare"), m.path("fleetShare"), problems);
      if (v != null && !(v > 0 && v <= 1)) {
        problems.at(m.value("fleetShare"), m.path("fleetShare") + " must be more than 0 and at"
            + " most 1 (the part of each limit this node allows), was " + v);
      } else if (v != null) {
        share = v;
      }
    }
    return new FailoverOptions(
        m.duration("probeInterval", d.probeInterval(), TEN_MS, MINUTE),
        m.duration("probeTimeout", d.probeTimeout(), MS, MINUTE),
        (int) m.integer("probeFailuresToTrip", d.probeFailuresToTrip(), 1, 100),
        m.duration("callTimeout", d.callTimeout(), MS, MINUTE),
        (int) m.integer("failuresToTrip", d.failuresToTrip(), 1, 10_000),
        m.duration("latencyThreshold", d.latencyThreshold(), MS, MINUTE),
        latencyWindow,
        (int) m.integer("slowWindowsToTrip", d.slowWindowsToTrip(), 0, 100),
        single, twice, share,
        m.integer("journalLimit", d.journalLimit(), 0, 100_000_000));
  }
}
