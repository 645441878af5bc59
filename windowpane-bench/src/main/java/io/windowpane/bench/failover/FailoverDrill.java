package io.windowpane.bench.failover;

import io.windowpane.bench.redis.Json;
import io.windowpane.bench.redis.Machine;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The failover drill: a {@link io.windowpane.Failover} chain of Redis, then the local
 * engine, with default options, under constant paced load while a real {@code redis-server} is
 * killed and restarted, or hung and resumed, and a fleet of chains sharing one Redis loses it.
 *
 * <p>What is measured, per 100 ms bucket of each trial: decisions per second, p50 and p99
 * decision latency (the {@code tryAcquire} call's own time; also the p99 from the paced
 * schedule), the engine that answered most decisions ({@code Decision.engine()}), the degraded
 * share and errors. Per trial: the time from the fault to the first decision answered by the
 * local engine, from Redis being back to the chain's report that it is UP again, the decision
 * p99 while the chain is on the fallback, the chain's lost events, and whether the Redis left
 * holds exactly what it must ({@link HeldCheck}). Scenarios:
 * <ul>
 *   <li><b>kill</b>: SIGKILL, then a new {@code redis-server} behind the same proxy address;
 *       {@code --kill-trials} times (default 5) for a p95 of detection;
 *   <li><b>hang</b>: SIGSTOP, then SIGCONT; {@code --hang-trials} times (default 3);
 *   <li><b>fleet</b>: {@code --fleet-nodes} chains at {@code fleetNodes(n)} offered twice their
 *       share of one hot key's limit, Redis killed: the most admitted in any 1 s window, against
 *       docs/failover.md's bound ({@link FleetOvershoot}).
 * </ul>
 * The first trial of each kind runs {@code --healthy}, {@code --down} and {@code --after}
 * (3 s each by default) and is the one plotted; later ones {@code --repeat-phase} (1 s) each.
 *
 * <p>Run (the script builds the jar, copies it so no concurrent build can replace it, bounds the
 * run in time and appends to results/runs.log):
 * <pre>
 * windowpane-bench/run-failover-drill.sh [--threads 8] [--rate 5000] [--keys 4096]
 *     [--kill-trials 5] [--hang-trials 3] [--scenarios kill,hang,fleet] [--out DIR]
 * </pre>
 * Output in {@code windowpane-bench/results/failover-drill-DATE/}: {@code drill.json} (machine,
 * settings, every trial with its buckets), {@code summary.md} (the goals, trial by trial),
 * {@code timeline-kill.md} and {@code timeline-hang.md}, and the plots {@code failover-drill.png}
 * (the first kill) and {@code failover-drill-hang.png}.
 */
public final class FailoverDrill {

  private static final java.util.logging.Logger LETTUCE_LOG =
      java.util.logging.Logger.getLogger("io.lettuce");
  private static final java.util.logging.Logger NETTY_LOG =
      java.util.logging.Logger.getLogger("io.netty");
  /** A trial or the fleet starts only if it should end, at its usual pace, within the budget. */
  private static final long USUAL_OVERHEAD_MILLIS = 15_000;
  /** Past the budget by this much, the process exits whatever it is doing. */
  private static final Duration HARD_STOP_GRACE = Duration.ofSeconds(60);

  private FailoverDrill() {}

  public static void main(String[] args) throws Exception {
    DrillOptions o;
    try {
      o = DrillOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(DrillOptions.USAGE);
      System.exit(2);
      return;
    }
    System.setProperty("java.awt.headless", "true");
    // Lettuce's reconnects during the outages, and netty's complaints when a closed engine's
    // reconnect timer fires, are noise here: the chain's own log lines say what happened.
    LETTUCE_LOG.setLevel(java.util.logging.Level.OFF);
    NETTY_LOG.setLevel(java.util.logging.Level.OFF);
    watchdog(o.budget().plus(HARD_STOP_GRACE));
    System.exit(run(o, args));
  }

  private static int run(DrillOptions o, String[] args) throws Exception {
    String loadBefore = loadAverage();
    Map<String, Object> machine = Machine.describe(redisVersion(), args);
    String runId = Long.toString(System.currentTimeMillis(), 36);
    String[] keys = new String[o.keys()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = "k" + i;
    }
    System.out.printf(Locale.ROOT, "failover drill %s: %d threads, %,d decisions/s offered over %,d"
            + " keys (tryAcquire + add each); %s; load average %s%n", runId, o.threads(), o.rate(),
        o.keys(), machine.get("cpuModel"), loadBefore);

    List<FaultTrial.Result> kills = new ArrayList<>();
    List<FaultTrial.Result> hangs = new ArrayList<>();
    FleetOvershoot.Result fleet = null;
    FaultTrial.Phases full = new FaultTrial.Phases(o.healthy(), o.down(), o.after());
    FaultTrial.Phases repeat = new FaultTrial.Phases(o.repeatPhase(), o.repeatPhase(),
        o.repeatPhase());
    long started = System.nanoTime();
    if (!o.warmup().isZero()) {
      FaultTrial.warmUp(o, keys, o.warmup());
    }
    List<String> skipped = new ArrayList<>();
    // The first trial of each kind and the fleet come first, the repeats after: if the budget
    // runs short on a busy machine, what is skipped is a repeat, not a scenario.
    List<Object[]> plan = new ArrayList<>();
    for (FaultTrial.Kind kind : FaultTrial.Kind.values()) {
      if (o.scenarios().contains(kind.name().toLowerCase())) {
        plan.add(new Object[] {kind, 1});
      }
    }
    if (o.scenarios().contains("fleet")) {
      plan.add(new Object[] {"fleet", 0});
    }
    for (FaultTrial.Kind kind : FaultTrial.Kind.values()) {
      int trials = kind == FaultTrial.Kind.KILL ? o.killTrials() : o.hangTrials();
      for (int i = 2; i <= trials && o.scenarios().contains(kind.name().toLowerCase()); i++) {
        plan.add(new Object[] {kind, i});
      }
    }
    for (Object[] step : plan) {
      if (step[0] instanceof FaultTrial.Kind kind) {
        int i = (Integer) step[1];
        FaultTrial.Phases phases = i == 1 ? full : repeat;
        long needs = phases.healthy().plus(phases.down()).plus(phases.after()).toMillis();
        if (!fits(started, needs, o.budget())) {
          skipped.add(kind.name().toLowerCase() + " " + i);
          continue;
        }
        FaultTrial.Result r = FaultTrial.run(kind, i, phases, runId, o, keys);
        (kind == FaultTrial.Kind.KILL ? kills : hangs).add(r);
        System.out.println(DrillReport.trialLine(r));
      } else {
        long needs = o.fleetHealthy().plus(o.fleetOutage()).plus(o.fleetAfter()).toMillis();
        if (!fits(started, needs, o.budget())) {
          skipped.add("fleet");
          continue;
        }
        fleet = FleetOvershoot.run(o, runId);
        System.out.println(DrillReport.fleetLine(fleet));
      }
    }
    if (!skipped.isEmpty()) {
      System.out.println("skipped to stay within the budget of " + o.budget() + ": " + skipped);
    }
    String loadAfter = loadAverage();
    DrillSummary summary = new DrillSummary(kills, hangs, fleet);

    Path dir = o.out();
    Files.createDirectories(dir);
    String subtitle = String.format(Locale.ROOT, "%d threads, %,d decisions/s offered, %,d keys;"
            + " %s processors; code %s; %s UTC; load average before %s", o.threads(), o.rate(),
        o.keys(), machine.get("nproc"), machine.get("commit"), machine.get("date"), loadBefore);
    if (!kills.isEmpty()) {
      FaultTrial.Result r = kills.get(0);
      TimelinePlot.write(r.timeline(), TimelineTable.full(r.timeline()), o.rate(),
          "Failover drill: Redis killed (SIGKILL), then a new redis-server", subtitle,
          dir.resolve("failover-drill.png"));
      Files.writeString(dir.resolve("timeline-kill.md"), DrillReport.timelineFile(r));
    }
    if (!hangs.isEmpty()) {
      FaultTrial.Result r = hangs.get(0);
      TimelinePlot.write(r.timeline(), TimelineTable.full(r.timeline()), o.rate(),
          "Failover drill: Redis hung (SIGSTOP), then resumed (SIGCONT)", subtitle,
          dir.resolve("failover-drill-hang.png"));
      Files.writeString(dir.resolve("timeline-hang.md"), DrillReport.timelineFile(r));
    }
    String summaryMd = DrillReport.summaryFile(summary, kills, hangs, fleet, machine, loadBefore,
        loadAfter, skipped);
    Files.writeString(dir.resolve("summary.md"), summaryMd);
    Files.writeString(dir.resolve("runs-line.txt"), DrillReport.logLine(summary, loadBefore,
        loadAfter) + "\n");

    Map<String, Object> settings = o.json();
    settings.put("skippedForTheBudget", skipped);
    settings.put("loadAverageBefore", loadBefore);
    settings.put("loadAverageAfter", loadAfter);
    Map<String, Object> results = new LinkedHashMap<>();
    results.put("summary", summary.json());
    List<Object> trials = new ArrayList<>();
    kills.forEach(r -> trials.add(DrillReport.trialJson(r)));
    hangs.forEach(r -> trials.add(DrillReport.trialJson(r)));
    results.put("trials", trials);
    results.put("fleet", fleet == null ? null : DrillReport.fleetJson(fleet));
    Json.writeResults(dir.resolve("drill.json"), "FailoverDrill", machine, settings, results);
    System.out.println();
    System.out.print(summary.goalsMarkdown());
    System.out.println("load average before " + loadBefore + ", after " + loadAfter);
    return 0;
  }

  private static boolean fits(long startedNanos, long phasesMillis, Duration budget) {
    long elapsed = (System.nanoTime() - startedNanos) / 1_000_000;
    return elapsed + phasesMillis + USUAL_OVERHEAD_MILLIS <= budget.toMillis();
  }

  /** The three load averages of /proc/loadavg, "?" where it cannot be read. */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " / " + f[1] + " / " + f[2];
    } catch (Exception e) {
      return "?";
    }
  }

  private static String redisVersion() {
    try (RedisServer s = RedisServer.start(); RespClient c = s.client()) {
      String info = String.valueOf(c.command("INFO", "server"));
      for (String line : info.split("\r?\n")) {
        if (line.startsWith("redis_version:")) {
          return line.substring("redis_version:".length()).trim();
        }
      }
      return "unknown";
    } catch (RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  /** Ends the JVM if the drill overstays its budget; shutdown hooks stop its redis-servers. */
  private static void watchdog(Duration budget) {
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(budget.toMillis());
      } catch (InterruptedException e) {
        return;
      }
      System.err.println("watchdog: the drill exceeded its budget of " + budget + "; exiting");
      System.exit(3);
    }, "drill-watchdog");
    t.setDaemon(true);
    t.start();
  }
}
