package io.windowpane.bench.failover;

import io.windowpane.bench.redis.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One run's figures against the failover goals: detection after a kill (p95 over the trials)
 * and after a hang, the decision p99 while the chain is on the local fallback, the time to recover
 * once Redis is back, events lost, and the fleet's overshoot.
 */
final class DrillSummary {

  /** Goals; see docs/benchmarks.md, "Failover drill". */
  static final long KILL_DETECTION_GOAL_MILLIS = 200;
  static final long HANG_DETECTION_GOAL_MILLIS = 100 + 200; // call timeout + 200 ms
  static final double FALLBACK_P99_GOAL_MILLIS = 5;
  static final long RECOVERY_GOAL_MILLIS = 2 * 100 + 1_000; // hysteresis (2 probes x 100 ms) + 1 s

  private final List<FaultTrial.Result> kills;
  private final List<FaultTrial.Result> hangs;
  private final FleetOvershoot.Result fleet;

  DrillSummary(List<FaultTrial.Result> kills, List<FaultTrial.Result> hangs,
      FleetOvershoot.Result fleet) {
    this.kills = kills;
    this.hangs = hangs;
    this.fleet = fleet;
  }

  // ---- per trial ------------------------------------------------------------------------------

  /** Fault to the first decision answered by the local engine, ms; -1 if none. */
  static double detectionMillis(FaultTrial.Result r) {
    Timeline t = r.timeline();
    return between(t.faultAt(), t.firstFallbackAt());
  }

  /** Fault to the chain's report that Redis tripped, ms; -1 if it did not. */
  static double tripMillis(FaultTrial.Result r) {
    return between(r.timeline().faultAt(), r.timeline().tripAt());
  }

  /** Redis back (retargeted or resumed) to the chain's report that it is UP, ms; -1 if never. */
  static double recoveryMillis(FaultTrial.Result r) {
    return between(r.timeline().restartAt(), r.timeline().recoveredAt());
  }

  /** Redis back to the chain's Redis engine answering a probe, ms; -1 if never. */
  static double reconnectMillis(FaultTrial.Result r) {
    return between(r.timeline().restartAt(), r.timeline().reconnectedAt());
  }

  /** Redis back to the first decision answered by Redis, ms; -1 if none. */
  static double firstPrimaryMillis(FaultTrial.Result r) {
    return between(r.timeline().restartAt(), r.timeline().firstPrimaryAfterRestartAt());
  }

  private static double between(long from, long to) {
    return from == Timeline.NONE || to == Timeline.NONE ? -1 : (to - from) / 1e6;
  }

  /** Decisions per second answered before the fault (the offered rate, if the machine kept up). */
  static double healthyRate(FaultTrial.Result r) {
    long fault = r.timeline().faultAt();
    long n = 0;
    long to = 0;
    for (TimelineTable.Row row : TimelineTable.full(r.timeline())) {
      if (row.toNanos() > fault) {
        break;
      }
      n += row.decisions();
      to = row.toNanos();
    }
    return to == 0 ? Double.NaN : n * 1e9 / to;
  }

  /** Replays the chain reported after Redis was UP again: how many, and their events summed. */
  static long[] replaysAfterRecovery(FaultTrial.Result r) {
    long at = r.timeline().recoveredAt();
    long n = 0;
    long events = 0;
    if (at != Timeline.NONE) {
      for (Timeline.Replay rp : r.timeline().replays()) {
        if (rp.atNanos() > at) {
          n++;
          events += rp.events();
        }
      }
    }
    return new long[] {n, events};
  }

  /** The events of the replay that preceded Redis being UP again (the backlog at recovery). */
  static long replayedAtRecovery(FaultTrial.Result r) {
    long at = r.timeline().recoveredAt();
    long events = 0;
    for (Timeline.Replay rp : r.timeline().replays()) {
      if (at != Timeline.NONE && rp.atNanos() <= at) {
        events = rp.events();
      }
    }
    return events;
  }

  static Histogram onFallback(FaultTrial.Result r) {
    return r.timeline().latency(Timeline.Phase.FALLBACK, Timeline.Phase.RECOVERING);
  }

  // ---- over the trials -----------------------------------------------------------------------

  /** The nearest-rank percentile {@code p} (0-100) of {@code values}; NaN when empty. */
  static double percentile(double[] values, double p) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  private static double[] each(List<FaultTrial.Result> rs,
      java.util.function.ToDoubleFunction<FaultTrial.Result> f) {
    return rs.stream().mapToDouble(f).toArray();
  }

  private static Histogram pooled(List<FaultTrial.Result> rs) {
    Histogram h = new Histogram(Timeline.MAX_LATENCY_NANOS, 3);
    rs.forEach(r -> h.add(onFallback(r)));
    return h;
  }

  private static boolean allPositive(double[] values) {
    return Arrays.stream(values).allMatch(v -> v >= 0);
  }

  /**
   * Events lost in {@code r}: the journal's overflow, plus what the Redis left lacked at the
   * check beyond what was still waiting in the journal for it (an undrained journal is late, not
   * lost); -1 when Redis could not be read.
   */
  static long lost(FaultTrial.Result r) {
    if (r.check() == null) {
      return -1;
    }
    long missing = r.check().lost() + r.check().countLost();
    return r.stats().lostEvents() + Math.max(0, missing - r.pendingAtCheck());
  }

  /** The trials whose detection means something: Redis was UP when the fault came. */
  private static List<FaultTrial.Result> detected(List<FaultTrial.Result> rs) {
    return rs.stream().filter(r -> !r.timeline().trippedAtFault()).toList();
  }

  private static String excluded(List<FaultTrial.Result> rs) {
    long n = rs.size() - detected(rs).size();
    return n == 0 ? "" : "; " + n + " more excluded: Redis was already tripped (a false trip)"
        + " when the fault came";
  }

  /** A goal's row: what was measured and whether it met the goal. */
  record Goal(String measure, String goal, String measured, String verdict) {

    Goal(String measure, String goal, String measured, boolean met) {
      this(measure, goal, measured, met ? "met" : "missed");
    }
  }

  List<Goal> goals() {
    List<Goal> goals = new ArrayList<>();
    if (!kills.isEmpty()) {
      double[] d = each(detected(kills), DrillSummary::detectionMillis);
      double p95 = percentile(d, 95);
      goals.add(new Goal("kill: fault to first fallback-served decision",
          "p95 <= " + KILL_DETECTION_GOAL_MILLIS + " ms",
          String.format(Locale.ROOT, "p95 %.1f ms over %d trials (%s)%s", p95, d.length, list(d),
              excluded(kills)),
          d.length > 0 && allPositive(d) && p95 <= KILL_DETECTION_GOAL_MILLIS));
    }
    if (!hangs.isEmpty()) {
      double[] d = each(detected(hangs), DrillSummary::detectionMillis);
      double max = Arrays.stream(d).max().orElse(-1);
      goals.add(new Goal("hang: fault to first fallback-served decision",
          "<= " + HANG_DETECTION_GOAL_MILLIS + " ms",
          String.format(Locale.ROOT, "max %.1f ms over %d trials (%s)%s", max, d.length, list(d),
              excluded(hangs)),
          d.length > 0 && allPositive(d) && max <= HANG_DETECTION_GOAL_MILLIS));
    }
    for (List<FaultTrial.Result> rs : List.of(kills, hangs)) {
      if (rs.isEmpty()) {
        continue;
      }
      String kind = rs.get(0).kind().name().toLowerCase();
      Histogram h = pooled(rs);
      double p99 = h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(99) / 1e6;
      goals.add(new Goal(kind + ": decision p99 on the local fallback",
          "<= " + (long) FALLBACK_P99_GOAL_MILLIS + " ms",
          String.format(Locale.ROOT, "%s ms over %,d decisions (max %s ms)", TimelineTable.ms(p99),
              h.getTotalCount(), TimelineTable.ms(h.getMaxValue() / 1e6)),
          p99 <= FALLBACK_P99_GOAL_MILLIS));
      // A trial already on the fallback before the fault had a longer outage than designed
      // (and journaled more): its recovery is listed, not judged.
      double[] rec = each(detected(rs), DrillSummary::recoveryMillis);
      double max = Arrays.stream(rec).max().orElse(-1);
      List<FaultTrial.Result> other = rs.stream().filter(r -> r.timeline().trippedAtFault())
          .toList();
      String others = other.isEmpty() ? "" : "; not judged (already tripped at the fault): "
          + list(each(other, DrillSummary::recoveryMillis));
      goals.add(new Goal(kind + ": Redis back to the chain on Redis",
          "<= " + RECOVERY_GOAL_MILLIS + " ms",
          String.format(Locale.ROOT, "max %.0f ms, median %.0f ms over %d trials (%s)%s", max,
              percentile(rec, 50), rec.length, list(rec), others),
          rec.length > 0 && allPositive(rec) && max <= RECOVERY_GOAL_MILLIS));
    }
    List<FaultTrial.Result> all = new ArrayList<>(kills);
    all.addAll(hangs);
    if (!all.isEmpty()) {
      long lost = 0;
      long unread = 0;
      long undrained = 0;
      for (FaultTrial.Result r : all) {
        long l = lost(r);
        if (l < 0) {
          unread++;
        } else {
          lost += l;
        }
        undrained += r.drained() ? 0 : 1;
      }
      goals.add(new Goal("events lost (journal overflow + missing from Redis)", "0",
          String.format(Locale.ROOT, "%,d over %d trials%s%s", lost, all.size() - unread,
              unread == 0 ? "" : "; " + unread + " trials' Redis could not be read",
              undrained == 0 ? "" : "; " + undrained + " trials' journal not drained "
                  + FaultTrial.DRAIN_DEADLINE_MILLIS / 1000 + " s after the load stopped (what was"
                  + " pending is not counted as lost)"),
          lost > 0 ? "missed" : unread > 0 ? "undecided" : "met"));
    }
    if (fleet != null) {
      for (FleetOvershoot.WindowMax w : fleet.windows()) {
        if (w.cls().equals("outage") || w.cls().equals("trip edge")) {
          String verdict = w.alignedWindows() == 0 ? "missed (no window)" : w.withinBound() ? "met"
              : w.beyondBound() ? "missed" : "undecided (within the stamps' uncertainty)";
          goals.add(new Goal("fleet of " + fleet.nodes()
              + (fleet.leasing() ? " with leasing" : "") + ": admitted per 1 s window, " + w.cls(),
              String.format(Locale.ROOT, "<= %,d (%s)", w.bound(),
                  w.cls().equals("outage") ? "L" : "2L"),
              String.format(Locale.ROOT, "max %,d-%,d = %.2f-%.2f L over %d windows",
                  w.certainMax(), w.possibleMax(), (double) w.certainMax() / fleet.limit(),
                  (double) w.possibleMax() / fleet.limit(), w.alignedWindows()),
              verdict));
        }
      }
    }
    return goals;
  }

  private static String list(double[] values) {
    List<String> out = new ArrayList<>();
    for (double v : values) {
      out.add(v < 0 ? "none" : String.format(Locale.ROOT, "%.0f", v));
    }
    return String.join(", ", out);
  }

  String goalsMarkdown() {
    StringBuilder s = new StringBuilder("| measure | goal | this run | |\n|---|---|---|---|\n");
    for (Goal g : goals()) {
      s.append("| ").append(g.measure()).append(" | ").append(g.goal()).append(" | ")
          .append(g.measured()).append(" | ")
          .append(g.verdict().equals("met") ? "met" : "**" + g.verdict() + "**")
          .append(" |\n");
    }
    return s.toString();
  }

  /** The figures, trial by trial and over the trials, for the results file. */
  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    for (List<FaultTrial.Result> rs : List.of(kills, hangs)) {
      if (rs.isEmpty()) {
        continue;
      }
      Map<String, Object> k = new LinkedHashMap<>();
      double[] d = each(detected(rs), DrillSummary::detectionMillis);
      double[] rec = each(detected(rs), DrillSummary::recoveryMillis);
      k.put("trialsAlreadyTrippedAtFault", rs.size() - detected(rs).size());
      k.put("detectionMillis", boxed(d));
      k.put("detectionP95Millis", percentile(d, 95));
      k.put("detectionMedianMillis", percentile(d, 50));
      k.put("tripMillis", boxed(each(rs, DrillSummary::tripMillis)));
      k.put("reconnectMillis", boxed(each(detected(rs), DrillSummary::reconnectMillis)));
      k.put("recoveryMillis", boxed(rec));
      k.put("recoveryMedianMillis", percentile(rec, 50));
      k.put("recoveryMaxMillis", Arrays.stream(rec).max().orElse(-1));
      k.put("firstRedisAnswerAfterBackMillis",
          boxed(each(detected(rs), DrillSummary::firstPrimaryMillis)));
      k.put("note", "detection, reconnect and recovery figures: trials with Redis UP at the fault");
      k.put("onFallbackLatency", latencyMillis(pooled(rs)));
      k.put("lostEvents", rs.stream().mapToLong(DrillSummary::lost).boxed().toList());
      m.put(rs.get(0).kind().name().toLowerCase(), k);
    }
    List<Map<String, Object>> goals = new ArrayList<>();
    for (Goal g : goals()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("measure", g.measure());
      row.put("goal", g.goal());
      row.put("measured", g.measured());
      row.put("verdict", g.verdict());
      goals.add(row);
    }
    m.put("goals", goals);
    return m;
  }

  static List<Double> boxed(double[] values) {
    return Arrays.stream(values).boxed().toList();
  }

  /** Json.latencyMicros, in milliseconds. */
  static Map<String, Object> latencyMillis(Histogram h) {
    Map<String, Object> out = new LinkedHashMap<>();
    Json.latencyMicros(h).forEach((key, v) -> out.put(key,
        v instanceof Double d && !key.equals("count") ? d / 1e3 : v));
    return out;
  }
}
