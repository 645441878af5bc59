package io.windowpane.bench.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.DeleteOption;
import io.windowpane.bench.redis.Json;
import io.windowpane.bench.redis.KeySet;
import io.windowpane.bench.redis.LoadRun;
import io.windowpane.bench.redis.Machine;
import io.windowpane.bench.redis.Result;
import io.windowpane.testkit.etcd.EtcdServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * etcd load generator: decisions per second and HdrHistogram latencies of windowpane's etcd
 * engine beside a naive compare-and-swap increment loop and plain puts, in one run, on one etcd,
 * at the same concurrency.
 *
 * <p>What is measured: for each thread count (default 16) and scenario, each contender in turn
 * gets a client of its own (its own jetcd {@code Client}, or its own {@code EtcdEngine}) and a key
 * prefix of its own; N caller threads call "decide for this key" back to back, blocking, for a
 * warmup (default 2 s) and then a measured interval (default 8 s) — the closed loop of the Redis
 * load generator ({@link LoadRun}), whose key sets, outcomes and results this reuses. After each
 * contender its keys are deleted and etcd's history compacted, so the next one starts on a
 * store of the same size. Scenarios: one hot key shared by every thread, and 1,000 keys drawn
 * uniformly from precomputed per-thread sequences. The limit (default 10^9 per 60 s window per
 * key) is never reached, so every decision is allowed and writes.
 *
 * <p>Contenders ({@link EtcdContenderKind}): {@code put} (plain put, the ceiling, decides
 * nothing), {@code naive-cas} (get, then {@code Txn If mod_revision == r Then put}, retried at
 * once up to 20 times, then a give-up), {@code windowpane-etcd} ({@code tryConsume(key, 1)} on a
 * {@code SLIDING_PANES} limiter of 60 s in 60 panes; the engine coalesces the concurrent calls of
 * one process on one key into one transaction). Beside throughput and latency it reports, per
 * decision, transactions sent, reads sent (the naive loop) and retries (lost compares, and for
 * the engine also failed calls retried), from each client's own counters or
 * {@code EtcdEngine.metrics()}, and the ratios to {@code put} and to {@code naive-cas}.
 *
 * <p>Run (the runner script builds first, passes the JVM flags, and can wait for a quiet machine):
 * <pre>
 * windowpane-bench/run-etcd-benchmarks.sh [--smoke] [--threads 1,16,64] [--duration 8s]
 *     [--warmup 2s] [--keys 1000] [--contenders put,naive-cas,windowpane-etcd]
 *     [--scenarios hot,uniform] [--naive-attempts 20] [--endpoint http://host:port] [--out FILE.json]
 * </pre>
 * Without {@code --endpoint} it starts its own single-member etcd on free loopback ports (the
 * testkit's {@link EtcdServer}) and stops it at the end. Every etcd call times out after 5 s, and
 * a watchdog ends the process if the run overstays its budget. The tables go to stdout, a JSON
 * file (machine, load average before and after, command line, every figure) to
 * {@code windowpane-bench/results/etcd-load-DATE.json} unless {@code --out} says otherwise.
 */
public final class EtcdLoadBenchmark {

  private static final java.util.logging.Logger GRPC_LOG =
      java.util.logging.Logger.getLogger("io.grpc");

  private EtcdLoadBenchmark() {}

  public static void main(String[] args) throws Exception {
    EtcdOptions options;
    try {
      options = EtcdOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(EtcdOptions.USAGE);
      System.exit(2);
      return;
    }
    // jetcd's gRPC logs its transport set-up at INFO; kept quiet as the Redis generator keeps Lettuce
    GRPC_LOG.setLevel(java.util.logging.Level.WARNING);
    startWatchdog(options.budget());
    int status;
    if (options.endpoint() != null) {
      status = run(options, options.endpoint(), "unknown (external)", args);
    } else {
      try (EtcdServer server = EtcdServer.start()) {
        System.out.println("started " + server);
        status = run(options, server.endpoint(), etcdVersion(), args);
      }
      System.out.println("stopped the etcd server");
    }
    System.exit(status);
  }

  private static int run(EtcdOptions options, String endpoint, String etcdVersion, String[] args)
      throws Exception {
    String loadBefore = loadAverage();
    Map<String, Object> machine = Machine.describe("n/a", args);
    machine.remove("redisVersion");
    machine.put("etcdVersion", etcdVersion);
    machine.put("loadAverageBefore", loadBefore);
    String runId = Long.toString(System.currentTimeMillis(), 36);
    System.out.printf(Locale.ROOT, "etcd %s at %s; caller threads %s; warmup %s, measured %s per"
            + " contender, scenario and thread count;%nlimit %,d per %d ms window per key"
            + " (windowpane-etcd: %d panes); naive-cas: %d attempts, pause %d us; timeout %s;"
            + " prefix wpb-%s%n",
        etcdVersion, endpoint, options.threads().stream().map(String::valueOf)
            .collect(java.util.stream.Collectors.joining(", ")), options.warmup(), options.duration(),
        options.limit(), options.windowMillis(), options.panes(), options.naiveAttempts(),
        options.naivePauseMicros(), options.timeout(), runId);
    System.out.printf("machine: %s processors, %s, %s; commit %s%n", machine.get("nproc"),
        machine.get("cpuModel"), machine.get("jvm"), machine.get("commit"));
    System.out.println("load average (1, 5, 15 min) before: " + loadBefore);

    List<Map<String, Object>> json = new ArrayList<>();
    List<List<EtcdRow>> groups = new ArrayList<>();
    boolean failed = false;
    try (Client admin = Jetcd.client(endpoint)) {
      for (int threads : options.threads()) {
        for (KeySet keySet : options.keySets()) {
          List<EtcdRow> rows = new ArrayList<>();
          for (EtcdContenderKind kind : options.contenders()) {
            String prefix = "wpb-" + runId + "-" + kind.label() + "-" + keySet.name() + "-t"
                + threads;
            EtcdSettings settings = new EtcdSettings(endpoint, options.limit(),
                options.windowMillis(), options.panes(), prefix, options.naiveAttempts(),
                options.naivePauseMicros(), options.timeout().toMillis());
            EtcdRow row = measure(kind, settings, keySet, threads, options);
            clean(admin, prefix);
            failed |= row.result().decisions() == 0;
            rows.add(row);
            json.add(EtcdReport.json(row));
            System.out.printf(Locale.ROOT, "  done %-16s %-10s %3d threads %,10.0f decisions/s%n",
                kind.label(), keySet.name(), threads, row.result().decisionsPerSecond());
          }
          groups.add(rows);
          System.out.printf("%nscenario %s (%,d key%s), %d threads%n", keySet.name(),
              keySet.keys().length, keySet.keys().length == 1 ? "" : "s", threads);
          EtcdReport.print(rows, System.out);
          System.out.println();
        }
      }
    }
    EtcdReport.printTargets(groups, System.out);
    String loadAfter = loadAverage();
    machine.put("loadAverageAfter", loadAfter);
    System.out.println("load average (1, 5, 15 min) after: " + loadAfter);
    Json.writeResults(options.out(), "EtcdLoadBenchmark", machine, options.json(endpoint), json);
    return failed ? 1 : 0;
  }

  private static EtcdRow measure(EtcdContenderKind kind, EtcdSettings settings, KeySet keySet,
      int threads, EtcdOptions options) throws InterruptedException {
    EtcdContender contender;
    try {
      contender = kind.create(settings);
      contender.prepare(keySet.keys());
    } catch (RuntimeException | LinkageError e) {
      System.out.println("  skip " + kind.label() + ": " + e);
      return new EtcdRow(threads, Result.unavailable(kind.label(), keySet.name(), e.toString()),
          EtcdCounts.ZERO);
    }
    AtomicReference<EtcdCounts> start = new AtomicReference<>(EtcdCounts.ZERO);
    AtomicReference<EtcdCounts> end = new AtomicReference<>(EtcdCounts.ZERO);
    try {
      System.gc(); // the previous contender's garbage is not this one's pause
      Result result = LoadRun.run(kind.label(), contender, keySet, threads, options.warmup(),
          options.duration(), () -> start.set(contender.counts()),
          () -> end.set(contender.counts()));
      return new EtcdRow(threads, result, end.get().minus(start.get()));
    } finally {
      contender.close();
    }
  }

  /** Deletes a contender's keys and compacts etcd's history up to now. */
  private static void clean(Client admin, String prefix) {
    try {
      ByteSequence p = Jetcd.bytes(prefix + "/");
      DeleteResponse deleted = Jetcd.await(admin.getKVClient().delete(p,
          DeleteOption.builder().isPrefix(true).build()), 30_000);
      long revision = deleted.getHeader().getRevision();
      Jetcd.await(admin.getKVClient().compact(revision,
          CompactOption.builder().withCompactPhysical(true).build()), 30_000);
    } catch (Exception e) {
      System.out.println("  cleanup of " + prefix + " failed: " + e);
    }
  }

  /** {@code /proc/loadavg}'s first three fields, or "unknown". */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** {@code etcd --version}'s first line, or "unknown". */
  private static String etcdVersion() {
    try {
      Process p = new ProcessBuilder("etcd", "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      p.waitFor();
      return out.lines().findFirst().orElse("unknown").replace("etcd Version: ", "");
    } catch (IOException | RuntimeException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static void startWatchdog(Duration budget) {
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(budget.toMillis());
      } catch (InterruptedException e) {
        return;
      }
      System.err.println("watchdog: the run exceeded its budget of " + budget + "; exiting");
      System.exit(3); // the testkit's shutdown hook stops an etcd we started
    }, "watchdog");
    t.setDaemon(true);
    t.start();
  }
}
