package io.windowpane.bench.redis;

import io.windowpane.StatsSpec;
import io.windowpane.bench.stats.LatencyValues;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Statistics load generator: calls per second and HdrHistogram latencies (p50, p99, p99.9) of
 * windowpane's Redis statistics window beside the raw sorted-set design (every value stored, the
 * whole window fetched and recomputed in the client per request: {@link RawZsetStatsContender}),
 * in one run, on one loopback server, at the same concurrency, with each key's 60 s window held
 * at a chosen population (10,000 or 1,000,000 values) by a {@code ManualClock} passed as the
 * client's time ({@link io.windowpane.bench.stats.WindowTraffic}).
 *
 * <p>What is measured: as {@link RedisLoadBenchmark} (the same closed loop, {@link LoadRun}):
 * N caller threads (default 16) each call in a loop, blocking, for a warmup and a measured
 * interval, per contender and scenario, on a fresh client and key namespace; the calls counted
 * (and whose latencies are recorded) are those that complete within the measured interval, since
 * a raw request can take longer than the interval itself; before the warmup
 * the contender prefills one window of values per key (not measured, its time reported), and
 * afterwards the run reads the population of key 0's window (it must still be the scenario's)
 * and the last p99 a request read. A call is one record ({@code -record}, {@code -append}) or
 * one record followed by reading the window's p99 ({@code -request}). Scenarios are
 * {@code KEYSxPOPULATION}: {@code 1x10000}, {@code 1x1000000} (one hot key) and
 * {@code 1000x10000} (keys drawn uniformly). Every command times out after {@code --timeout}
 * (default 60 s): a raw request at 1,000,000 values moves about 20 MB and, with 16 callers
 * queued on one server thread, takes seconds, so the run is bounded by time, not by a count
 * of calls; a watchdog ends the process if the run overstays its budget.
 *
 * <p>Run (the runner script builds first and passes the JVM flags):
 * <pre>
 * windowpane-bench/run-stats-benchmarks.sh redis-load
 * java -Xms4g -Xmx4g -XX:+AlwaysPreTouch -cp windowpane-bench/target/benchmarks.jar \
 *     io.windowpane.bench.redis.StatsLoadBenchmark [--threads 16] [--duration 10s]
 *     [--warmup 3s] [--timeout 60s] [--scenarios 1x10000,1x1000000,1000x10000]
 *     [--contenders windowpane-record,windowpane-request,...] [--panes 60,12]
 *     [--redis-uri redis://host:port] [--out FILE.json]
 * </pre>
 * Without {@code --redis-uri} it starts its own {@code redis-server} on a free loopback port and
 * stops it at the end. The table goes to stdout, a JSON file to
 * {@code windowpane-bench/results/stats-redis-load-DATE.json} unless {@code --out} says otherwise.
 */
public final class StatsLoadBenchmark {

  private StatsLoadBenchmark() {}

  public static void main(String[] args) throws Exception {
    StatsOptions options;
    try {
      options = StatsOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(StatsOptions.USAGE);
      System.exit(2);
      return;
    }
    java.util.logging.Logger.getLogger("io.lettuce").setLevel(java.util.logging.Level.WARNING);
    RedisLoadBenchmark.Watchdog.start(options.budget());
    // client libraries may leave non-daemon threads behind: exit explicitly
    System.exit(RedisLoadBenchmark.onRedis(options.redisUri(), uri -> run(options, uri, args)));
  }

  private static int run(StatsOptions options, String uri, String[] args) throws Exception {
    Optional<ServerStats> stats = ServerStats.connect(uri);
    String redisVersion = stats.map(ServerStats::version).orElse("unknown (no side connection)");
    Map<String, Object> machine = Machine.describe(redisVersion, args);
    String runId = Long.toString(System.currentTimeMillis(), 36);
    System.out.printf(Locale.ROOT, "redis %s at %s; %d caller threads; warmup %s, measured %s per"
            + " contender and scenario; command timeout %s;%nwindow %d s; values lognormal"
            + " (median %.0f ms, sigma %.1f); histogram panes %s; namespace wps-%s%n",
        redisVersion, uri, options.threads(), options.warmup(), options.duration(),
        options.timeout(), StatsOptions.WINDOW_MILLIS / 1000, LatencyValues.MEDIAN_MILLIS,
        LatencyValues.SIGMA, options.panes(), runId);
    System.out.printf("machine: %s processors, %s, %s%n", machine.get("nproc"),
        machine.get("cpuModel"), machine.get("jvm"));

    List<Map<String, Object>> json = new ArrayList<>();
    boolean failed = false;
    for (StatsOptions.Scenario scenario : options.scenarios()) {
      List<Result> results = new ArrayList<>();
      List<String> checks = new ArrayList<>();
      for (StatsContenderKind kind : options.contenders()) {
        for (int panes : kind.paned() ? options.panes() : List.of(options.panes().get(0))) {
          String label = kind.label(panes);
          if (kind == StatsContenderKind.WINDOWPANE_EXACT_REQUEST
              && scenario.population() + options.threads() * 1_000L > StatsSpec.MAX_VALUES) {
            System.out.printf("  skip %s at %s: an exact window holds at most %,d values%n",
                label, scenario.name(), StatsSpec.MAX_VALUES);
            continue;
          }
          StatsSettings settings = new StatsSettings(uri, StatsOptions.WINDOW_MILLIS, panes,
              scenario.population(), 1, "wps-" + runId + ":" + label + ":" + scenario.name(),
              options.timeout());
          Map<String, Object> row = new LinkedHashMap<>();
          Result result = measure(kind, label, settings, scenario, options, stats, row, checks);
          failed |= result.decisions() == 0;
          results.add(result);
          Map<String, Object> entry = Report.json(result);
          entry.putAll(row);
          entry.put("panes", kind.paned() ? panes : null);
          entry.put("population", scenario.population());
          entry.put("keys", scenario.keys());
          json.add(entry);
          if (result.seconds() > 0) {
            System.out.printf(Locale.ROOT, "  done %-28s %-11s %,12.1f calls/s%n", label,
                scenario.name(), result.decisionsPerSecond());
          }
        }
      }
      System.out.printf("%nscenario %s: %,d key%s, each window held at %,d values; %d threads%n",
          scenario.name(), scenario.keys(), scenario.keys() == 1 ? "" : "s",
          scenario.population(), options.threads());
      Report.print(results, System.out, "calls/s");
      checks.forEach(System.out::println);
      System.out.println();
    }
    stats.ifPresent(ServerStats::close);

    Json.writeResults(options.out(), "StatsLoadBenchmark", machine, options.json(uri), json);
    return failed ? 1 : 0;
  }

  private static Result measure(StatsContenderKind kind, String label, StatsSettings settings,
      StatsOptions.Scenario scenario, StatsOptions options, Optional<ServerStats> stats,
      Map<String, Object> row, List<String> checks) throws InterruptedException {
    KeySet keySet = scenario.keySet();
    StatsContender contender;
    try {
      contender = kind.create(settings);
    } catch (RuntimeException | LinkageError e) {
      System.out.println("  skip " + label + ": " + e);
      return Result.unavailable(label, keySet.name(), e.toString());
    }
    try {
      long start = System.nanoTime();
      try {
        contender.prepare(keySet.keys());
      } catch (RuntimeException e) {
        System.out.println("  skip " + label + ": " + e);
        return Result.unavailable(label, keySet.name(), e.toString());
      }
      double prefillSeconds = (System.nanoTime() - start) / 1e9;
      long before = population(contender);
      System.gc(); // the previous contender's garbage is not this one's pause
      Result result = LoadRun.runCountingCompletions(label, contender, keySet, options.threads(),
          options.warmup(), options.duration(), stats, options.timeout().plusSeconds(10));
      long after = population(contender);
      double p99 = contender.lastP99();
      row.put("prefillSeconds", prefillSeconds);
      row.put("populationKey0AfterPrefill", before);
      row.put("populationKey0AtEnd", after);
      row.put("lastP99", Double.isNaN(p99) ? null : p99);
      checks.add(String.format(Locale.ROOT, "  %-28s prefill %.1f s; key 0 holds %,d values"
              + " after it and %,d at the end%s", label, prefillSeconds, before, after,
          Double.isNaN(p99) ? "" : String.format(Locale.ROOT, "; last p99 read %.3f", p99)));
      return result;
    } finally {
      contender.close();
      // Its keys go now, not by expiry (or a background free) during the next measurement.
      stats.ifPresent(s -> s.deleteMatching("*" + settings.namespace() + "*"));
    }
  }

  private static long population(StatsContender contender) {
    try {
      return contender.population(0);
    } catch (Exception e) {
      return -1;
    }
  }
}
