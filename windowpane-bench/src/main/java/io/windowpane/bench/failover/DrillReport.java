package io.windowpane.bench.failover;

import io.windowpane.Failover;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** The drill's text: console lines, the Markdown files, the JSON of each trial and the fleet. */
final class DrillReport {

  private DrillReport() {}

  private static String kind(FaultTrial.Result r) {
    return r.kind().name().toLowerCase();
  }

  private static String ms(double millis) {
    return millis < 0 ? "none" : String.format(Locale.ROOT, "%.0f", millis);
  }

  /** One line per trial, as it ends. */
  static String trialLine(FaultTrial.Result r) {
    Histogram h = DrillSummary.onFallback(r);
    return String.format(Locale.ROOT, "%s %d: first local answer %s ms after the fault, tripped"
            + " %s ms; connection back %s ms and chain on redis %s ms after redis returned; p99"
            + " on the fallback %s ms (%,d decisions); signals %s; journal lost %d; Redis holds"
            + " %s; errors %d%s",
        kind(r), r.number(), ms(DrillSummary.detectionMillis(r)),
        ms(DrillSummary.tripMillis(r)), ms(DrillSummary.reconnectMillis(r)),
        ms(DrillSummary.recoveryMillis(r)),
        TimelineTable.ms(h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(99) / 1e6),
        h.getTotalCount(), r.signals(), r.stats().lostEvents(), held(r),
        r.timeline().errors(Timeline.Phase.values()), notes(r).isEmpty() ? "" : "; " + notes(r));
  }

  /** What makes a trial unusual: false trips, re-trips, a journal not drained, dropped calls. */
  static String notes(FaultTrial.Result r) {
    List<String> n = new ArrayList<>();
    Timeline t = r.timeline();
    if (t.trippedAtFault()) {
      n.add("Redis already tripped when the fault came");
    }
    if (t.falseTrips() > 0) {
      n.add(t.falseTrips() + " false trip(s) before the fault");
    }
    if (t.retrips() > 0) {
      n.add(t.retrips() + " re-trip(s) after recovery");
    }
    if (!r.drained()) {
      n.add(String.format(Locale.ROOT, "journal not drained (%,d events pending at the check)",
          r.pendingAtCheck()));
    }
    if (r.dropped() > 0) {
      n.add(String.format(Locale.ROOT, "%,d scheduled calls dropped (threads > 1 s behind)",
          r.dropped()));
    }
    return String.join(", ", n);
  }

  private static String held(FaultTrial.Result r) {
    HeldCheck c = r.check();
    if (c == null) {
      return "not read (" + r.checkError() + ")";
    }
    if (c.exact()) {
      long doubles = c.held() - c.expected();
      return String.format(Locale.ROOT, "%,d of %,d expected%s, counter %,d in [%,d, %,d]",
          c.held(), c.expected(), doubles > 0 ? " (+" + doubles + " fallback calls counted"
              + " twice)" : "", c.counted(), c.countLow(), c.countHigh());
    }
    return String.format(Locale.ROOT, "MISMATCH %,d against %,d expected (short %,d, unexplained"
            + " %,d; counter %,d in [%,d, %,d]: short %,d, unexplained %,d; %,d events still in"
            + " the journal)", c.held(), c.expected(), c.lost(), c.surplus(), c.counted(),
        c.countLow(), c.countHigh(), c.countLost(), c.countSurplus(), r.pendingAtCheck());
  }

  static String fleetLine(FleetOvershoot.Result f) {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
        "fleet of %d, limit %,d/s%s, %,.0f/s offered per node, killed %s:", f.nodes(),
        f.limit(), f.leasing() ? " with leasing" : "", f.offeredPerNode(),
        f.killTargeted() ? "right after a burst" : "untargeted"));
    for (FleetOvershoot.WindowMax w : f.windows()) {
      s.append(String.format(Locale.ROOT, " %s max %,d-%,d (%.2f-%.2f L, bound %,d: %s);",
          w.cls(), w.certainMax(), w.possibleMax(), (double) w.certainMax() / f.limit(),
          (double) w.possibleMax() / f.limit(), w.bound(), w.verdict()));
    }
    return s.append(" re-trips after recovery ").append(f.retrips()).append("; errors ")
        .append(f.errors()).toString();
  }

  static String timelineFile(FaultTrial.Result r) {
    Timeline t = r.timeline();
    String what = r.kind() == FaultTrial.Kind.KILL
        ? "Redis killed (SIGKILL), then a new redis-server behind the proxy"
        : "Redis hung (SIGSTOP), then resumed (SIGCONT)";
    return "# Failover drill timeline: " + what + " (trial " + r.number() + ")\n\n"
        + "A decision is counted in the 100 ms bucket in which it returned. Latency: the"
        + " tryAcquire call's own time; from schedule: since the paced start it was due at."
        + " Events: ms since the trial started.\n\n"
        + "## Condensed (100 ms around each event, 1 s elsewhere)\n\n"
        + TimelineTable.markdown(TimelineTable.condensed(t)) + "\n"
        + "## Every 100 ms\n\n" + TimelineTable.markdown(TimelineTable.full(t));
  }

  static String summaryFile(DrillSummary summary, List<FaultTrial.Result> kills,
      List<FaultTrial.Result> hangs, FleetOvershoot.Result fleet, Map<String, Object> machine,
      String loadBefore, String loadAfter, List<String> skipped) {
    StringBuilder s = new StringBuilder("# Failover drill\n\n");
    s.append(String.format(Locale.ROOT, "%s UTC, code %s, %s processors (%s), %s; load average"
            + " %s before, %s after.%n%n", machine.get("date"), machine.get("commit"),
        machine.get("nproc"), machine.get("cpuModel"), machine.get("jvm"), loadBefore, loadAfter));
    if (!skipped.isEmpty()) {
      s.append("Skipped to stay within the time budget: ").append(String.join(", ", skipped))
          .append(".\n\n");
    }
    s.append("## Against the goals\n\n").append(summary.goalsMarkdown()).append('\n');
    List<FaultTrial.Result> all = new ArrayList<>(kills);
    all.addAll(hangs);
    if (!all.isEmpty()) {
      s.append("## Trials\n\nTimes in ms: from the fault to the first decision answered by"
          + " the local engine and to the chain's report that Redis tripped; from Redis being back"
          + " (new server retargeted, or SIGCONT) to the chain's Redis connection answering a"
          + " probe, to the chain's report that Redis is UP, and to the first decision answered"
          + " by Redis (it may precede the report by a few ms: the report follows the switch)."
          + " p99 and max: decision latency while the chain was on the fallback. Healthy:"
          + " decisions/s answered before the fault (offered: see the settings)."
          + " Replayed before UP: the backlog replayed before Redis took calls again; after UP:"
          + " the replays of stragglers the chain reported afterwards, and their events summed"
          + " (a batch sent by overlapping replays counts once per replay).\n\n"
          + "| trial | phases (s) | healthy/s | first local answer | tripped | connection back |"
          + " chain on redis | first redis answer | p99 on fallback | max |"
          + " signals | replayed before UP | replays after UP (events) | journal lost |"
          + " Redis holds | errors | notes |\n"
          + "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|---|--:|---|--:|---|\n");
      for (FaultTrial.Result r : all) {
        Histogram h = DrillSummary.onFallback(r);
        long[] after = DrillSummary.replaysAfterRecovery(r);
        s.append(String.format(Locale.ROOT, "| %s %d | %.0f/%.0f/%.0f | %,.0f | %s | %s | %s | %s |"
                + " %s | %s | %s | %s | %,d | %d (%,d) | %d | %s | %d | %s |%n", kind(r),
            r.number(), r.phases().healthy().toMillis() / 1e3, r.phases().down().toMillis() / 1e3,
            r.phases().after().toMillis() / 1e3, DrillSummary.healthyRate(r),
            ms(DrillSummary.detectionMillis(r)),
            ms(DrillSummary.tripMillis(r)), ms(DrillSummary.reconnectMillis(r)),
            ms(DrillSummary.recoveryMillis(r)), ms(DrillSummary.firstPrimaryMillis(r)),
            TimelineTable.ms(h.getTotalCount() == 0 ? Double.NaN
                : h.getValueAtPercentile(99) / 1e6),
            TimelineTable.ms(h.getMaxValue() / 1e6), r.signals(),
            DrillSummary.replayedAtRecovery(r), after[0], after[1], r.stats().lostEvents(),
            held(r), r.timeline().errors(Timeline.Phase.values()), notes(r)));
      }
      s.append('\n');
    }
    if (fleet != null) {
      s.append(String.format(Locale.ROOT, "## Fleet overshoot%n%n%d nodes at fleetNodes(%d), hot"
              + " key limit L = %,d per 1 s (10 panes)%s, %,.0f/s offered per node; killed at"
              + " %.2f s (%s), last node tripped at %.2f s, new server at %.2f s, last node on"
              + " Redis at %.2f s; %d trip(s) after a node's recovery. Windows aligned to the"
              + " 100 ms panes; \"any\" = every 1 s interval (ms steps), for information.%n%n",
          fleet.nodes(), fleet.nodes(), fleet.limit(),
          fleet.leasing() ? ", hot-key leasing on (Leasing.defaults())" : "",
          fleet.offeredPerNode(),
          fleet.killAt() / 1e3, fleet.killTargeted() ? "right after a burst of Redis's"
              + " admissions: the last second held L, the last 100 ms none"
              : "no burst end seen within 3 s: at that point", fleet.lastTripAt() / 1e3,
          fleet.restartAt() / 1e3, fleet.lastRecoveredAt() / 1e3, fleet.retrips()));
      s.append("| windows | bound | aligned windows | max admitted, certain | possible | × L"
          + " (possible) | against the bound | any 1 s interval, possible max |\n"
          + "|---|--:|--:|--:|--:|--:|---|--:|\n");
      for (FleetOvershoot.WindowMax w : fleet.windows()) {
        s.append(String.format(Locale.ROOT, "| %s | %,d | %d | %,d | %,d | %.2f | %s | %,d |%n",
            w.cls(), w.bound(), w.alignedWindows(), w.certainMax(), w.possibleMax(),
            (double) w.possibleMax() / fleet.limit(), w.verdict(), w.anyPossibleMax()));
      }
    }
    return s.toString();
  }

  /** The line for results/runs.log (the script prefixes the time and the run's name). */
  static String logLine(DrillSummary summary, String loadBefore, String loadAfter) {
    List<String> parts = new ArrayList<>();
    for (DrillSummary.Goal g : summary.goals()) {
      parts.add(g.measure() + " " + g.measured() + " (" + g.verdict() + ")");
    }
    return "load average " + loadBefore + " before, " + loadAfter + " after; "
        + String.join("; ", parts);
  }

  static Map<String, Object> trialJson(FaultTrial.Result r) {
    Timeline t = r.timeline();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kind", kind(r));
    m.put("trial", r.number());
    m.put("healthyMillis", r.phases().healthy().toMillis());
    m.put("downMillis", r.phases().down().toMillis());
    m.put("afterMillis", r.phases().after().toMillis());
    Map<String, Object> at = new LinkedHashMap<>();
    at.put("fault", millis(t.faultAt()));
    at.put("faultCallReturned", millis(t.faultDoneAt()));
    at.put("firstLocalAnswer", millis(t.firstFallbackAt()));
    at.put("tripped", millis(t.tripAt()));
    at.put("redisBack", millis(t.restartAt()));
    at.put("connectionBack", millis(t.reconnectedAt()));
    at.put("firstRedisAnswer", millis(t.firstPrimaryAfterRestartAt()));
    at.put("chainOnRedis", millis(t.recoveredAt()));
    m.put("atMillis", at);
    m.put("detectionMillis", DrillSummary.detectionMillis(r));
    m.put("tripMillis", DrillSummary.tripMillis(r));
    m.put("reconnectMillis", DrillSummary.reconnectMillis(r));
    m.put("recoveryMillis", DrillSummary.recoveryMillis(r));
    m.put("firstRedisAnswerAfterBackMillis", DrillSummary.firstPrimaryMillis(r));
    m.put("healthyDecisionsPerSecond", DrillSummary.healthyRate(r));
    m.put("replayedBeforeUp", DrillSummary.replayedAtRecovery(r));
    long[] after = DrillSummary.replaysAfterRecovery(r);
    m.put("replaysAfterUp", after[0]);
    m.put("replaysAfterUpEventsSummed", after[1]);
    m.put("faultCallMillis", r.faultCallMillis());
    m.put("newServerStartMillis", r.serverStartMillis());
    m.put("signalsBeforeRestart", r.signals().stream().map(Enum::name).toList());
    Failover.Stats st = r.stats();
    Map<String, Object> stats = new LinkedHashMap<>();
    stats.put("trips", st.trips());
    stats.put("recoveries", st.recoveries());
    stats.put("replayedEvents", st.replayedEvents());
    stats.put("droppedEvents", st.droppedEvents());
    stats.put("lostEvents", st.lostEvents());
    stats.put("journaledBatches", st.journaledBatches());
    m.put("chainStats", stats);
    m.put("drained", r.drained());
    m.put("pendingAtCheck", r.pendingAtCheck());
    m.put("lostEvents", DrillSummary.lost(r));
    m.put("held", r.check() == null ? Map.of("error", String.valueOf(r.checkError()))
        : r.check().json());
    m.put("trippedAtFault", t.trippedAtFault());
    m.put("falseTrips", t.falseTrips());
    m.put("retripsAfterRecovery", t.retrips());
    m.put("droppedScheduledCalls", r.dropped());
    m.put("firstError", t.firstError());
    Map<String, Object> phases = new LinkedHashMap<>();
    for (Timeline.Phase p : Timeline.Phase.values()) {
      Map<String, Object> ph = DrillSummary.latencyMillis(t.latency(p));
      ph.put("errors", t.errors(p));
      phases.put(p.name().toLowerCase(), ph);
    }
    m.put("latencyByPhaseMillis", phases);
    List<Object> transitions = new ArrayList<>();
    for (Timeline.Transition tr : t.transitions()) {
      transitions.add(Map.of("atMillis", millis(tr.atNanos()), "engine", tr.engine(),
          "from", tr.from().name(), "to", tr.to().name(), "reason", tr.reason()));
    }
    m.put("transitions", transitions);
    List<Object> replays = new ArrayList<>();
    for (Timeline.Replay rp : t.replays()) {
      replays.add(Map.of("atMillis", millis(rp.atNanos()), "engine", rp.engine(),
          "events", rp.events()));
    }
    m.put("replays", replays);
    m.put("buckets", TimelineTable.full(t).stream().map(TimelineTable.Row::json).toList());
    return m;
  }

  private static Object millis(long nanos) {
    return nanos == Timeline.NONE ? null : nanos / 1e6;
  }

  static Map<String, Object> fleetJson(FleetOvershoot.Result f) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("nodes", f.nodes());
    m.put("limitPerSecond", f.limit());
    m.put("leasing", f.leasing());
    m.put("offeredPerNodePerSecond", f.offeredPerNode());
    m.put("killAtMillis", f.killAt());
    m.put("killRightAfterABurst", f.killTargeted());
    m.put("trippedAtMillis", java.util.Arrays.stream(f.tripAt()).boxed().toList());
    m.put("redisBackAtMillis", f.restartAt());
    m.put("onRedisAgainAtMillis", java.util.Arrays.stream(f.recoveredAt()).boxed().toList());
    m.put("stopAtMillis", f.stopAt());
    m.put("decisions", f.decisions());
    m.put("errors", f.errors());
    m.put("firstError", f.firstError());
    m.put("windows", f.windows().stream().map(w -> w.json(f.limit())).toList());
    m.put("retripsAfterRecovery", f.retrips());
    m.put("transitionsByNode", f.transitions());
    m.put("admittedPer100ms", java.util.Arrays.stream(f.admitted()).boxed().toList());
    m.put("admittedByLocalPer100ms", java.util.Arrays.stream(f.byLocal()).boxed().toList());
    return m;
  }
}
