package io.windowpane.bench.redis;

import io.windowpane.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Redis load generator: decisions per second and HdrHistogram latencies (p50, p99, p99.9) of
 * windowpane's Redis engine beside the Redis rate limits users would otherwise write or pick, in
 * one run, on one loopback server, at the same concurrency.
 *
 * <p>What is measured: N caller threads (default 16) each call "decide for this key" in a closed
 * loop with blocking calls, for a warmup (default 3 s) and then a measured interval (default
 * 10 s), per contender and per scenario; each contender has a fresh client of its own and a fresh
 * key namespace, and is closed, and its keys deleted, before the next starts (so no contender's
 * measurement pays for freeing another's sorted sets). Scenarios: one hot key shared by every
 * thread, and 10,000 keys drawn uniformly at random from precomputed per-thread sequences. The
 * limit (default 1,000,000 per 1 s window, per key) is high enough that the hot key is mostly
 * allowed; the allowed/denied counts say what work was done. After each contender the server's
 * {@code INFO commandstats} (reset before the measured interval) gives the commands it used, their
 * calls per decision and {@code usec_per_call}, and {@code INFO cpu} the server's CPU time.
 *
 * <p>Contenders ({@link ContenderKind}): {@code incr} (the ceiling), {@code zset-lua},
 * {@code lock-zset} (the articles' design), {@code bucket4j}, {@code redisson}, and
 * {@code windowpane-panes}, {@code windowpane-weighted}, {@code windowpane-log}.
 *
 * <p>Run (the runner script builds first and passes the JVM flags that matter here):
 * <pre>
 * windowpane-bench/run-redis-benchmarks.sh [--threads 16] [--duration 10s] [--warmup 3s]
 *     [--limit 1000000] [--keys 10000] [--contenders incr,zset-lua,...]
 *     [--scenarios hot,uniform] [--redis-uri redis://host:port] [--out FILE.json]
 * </pre>
 * Without {@code --redis-uri} it starts its own {@code redis-server} on a free loopback port (the
 * testkit's {@link RedisServer}) and stops it at the end. The whole run is bounded: every command
 * times out after 2 s, and a watchdog ends the process if the run overstays its budget.
 * The table goes to stdout, a JSON file (machine, command line, every figure) to
 * {@code windowpane-bench/results/redis-load-DATE.json} unless {@code --out} says otherwise.
 */
public final class RedisLoadBenchmark {

  /** Lettuce logs its handshake at INFO on every connection; kept here so it stays quiet. */
  private static final java.util.logging.Logger LETTUCE_LOG =
      java.util.logging.Logger.getLogger("io.lettuce");

  /** Panes of windowpane's {@code SLIDING_PANES} window: 10 of 100 ms, as in the local bench. */
  static final int PANES = 10;

  private RedisLoadBenchmark() {}

  public static void main(String[] args) throws Exception {
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(Options.USAGE);
      System.exit(2);
      return;
    }
    LETTUCE_LOG.setLevel(java.util.logging.Level.WARNING);
    Watchdog.start(options.budget());
    System.exit(onRedis(options.redisUri(), uri -> run(options, uri, args)));
  }

  /** What a load run does once it has a server's URI. */
  interface Run {
    int on(String uri) throws Exception;
  }

  /**
   * Runs {@code run} against {@code redisUri}, or against a {@code redis-server} started on a
   * free loopback port (and stopped afterwards) when it is null; returns the run's exit status.
   */
  static int onRedis(String redisUri, Run run) throws Exception {
    if (redisUri != null) {
      return run.on(redisUri);
    }
    try (RedisServer server = RedisServer.start()) {
      System.out.println("started " + server);
      return run.on(server.uri());
    }
  }

  private static int run(Options options, String uri, String[] args) throws Exception {
    Optional<ServerStats> stats = ServerStats.connect(uri);
    String redisVersion = stats.map(ServerStats::version).orElse("unknown (no side connection)");
    Map<String, Object> machine = Machine.describe(redisVersion, args);
    String runId = Long.toString(System.currentTimeMillis(), 36);
    System.out.printf(Locale.ROOT, "redis %s at %s; %d caller threads; warmup %s, measured %s per"
            + " contender and scenario;%nlimit %,d per %d ms window per key; namespace wpb-%s; ",
        redisVersion, uri, options.threads(), options.warmup(), options.duration(),
        options.limit(), options.windowMillis(), runId);
    System.out.printf("windowpane-panes: %d panes per window%n", PANES);
    System.out.printf("machine: %s processors, %s, %s%n", machine.get("nproc"),
        machine.get("cpuModel"), machine.get("jvm"));

    List<Map<String, Object>> json = new ArrayList<>();
    boolean failed = false;
    for (KeySet keySet : options.keySets()) {
      List<Result> results = new ArrayList<>();
      for (ContenderKind kind : options.contenders()) {
        Settings settings = new Settings(uri, options.limit(), options.windowMillis(), PANES,
            "wpb-" + runId + ":" + kind.label() + ":" + keySet.name() + ":");
        Result result = measure(kind, settings, keySet, options, stats);
        failed |= result.decisions() == 0;
        results.add(result);
        json.add(Report.json(result));
        if (result.seconds() > 0) {
          System.out.printf(Locale.ROOT, "  done %-20s %-11s %,12.0f decisions/s%n", kind.label(),
              keySet.name(), result.decisionsPerSecond());
        }
      }
      System.out.printf("%nscenario %s (%,d key%s), %d threads%n", keySet.name(),
          keySet.keys().length, keySet.keys().length == 1 ? "" : "s", options.threads());
      Report.print(results, System.out);
      System.out.println();
    }
    stats.ifPresent(ServerStats::close);

    Json.writeResults(options.out(), "RedisLoadBenchmark", machine, options.json(uri), json);
    return failed ? 1 : 0;
  }

  private static Result measure(ContenderKind kind, Settings settings, KeySet keySet,
      Options options, Optional<ServerStats> stats) throws InterruptedException {
    Contender contender;
    try {
      contender = kind.create(settings);
    } catch (RuntimeException | LinkageError e) {
      System.out.println("  skip " + kind.label() + ": " + e);
      return Result.unavailable(kind.label(), keySet.name(), e.toString());
    }
    try {
      contender.prepare(keySet.keys());
    } catch (RuntimeException e) {
      System.out.println("  skip " + kind.label() + ": " + e);
      contender.close();
      return Result.unavailable(kind.label(), keySet.name(), e.toString());
    }
    try {
      System.gc(); // the previous contender's garbage is not this one's pause
      return LoadRun.run(kind.label(), contender, keySet, options.threads(), options.warmup(),
          options.duration(), stats);
    } finally {
      contender.close();
      // Its keys go now, not by expiry (or a background free) during the next measurement.
      stats.ifPresent(s -> s.deleteMatching("*" + settings.namespace() + "*"));
    }
  }

  /** Ends the JVM if the run overstays its budget (a hung client, a server that stopped answering). */
  static final class Watchdog {
    static void start(Duration budget) {
      Thread t = new Thread(() -> {
        try {
          Thread.sleep(budget.toMillis());
        } catch (InterruptedException e) {
          return;
        }
        System.err.println("watchdog: the run exceeded its budget of " + budget + "; exiting");
        System.exit(3); // shutdown hooks stop a redis-server we started
      }, "watchdog");
      t.setDaemon(true);
      t.start();
    }
  }
}
