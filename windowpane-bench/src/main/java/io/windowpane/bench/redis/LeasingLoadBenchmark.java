package io.windowpane.bench.redis;

import io.windowpane.Leasing;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.redis.RedisServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Hot-key leasing against one loopback Redis (docs/leasing.md), two client JVMs
 * ({@link LeasingNode}) sharing every limit, started together and measured over the same
 * interval:
 *
 * <ul>
 *   <li><b>throughput</b>: decisions/s of {@code incr} (plain {@code INCR}, the ceiling), a
 *       {@code plain} limiter ({@code SLIDING_PANES} 1 s / 10, every decision one function call)
 *       and the same limiter {@code leased} ({@code Leasing.defaults()}), on one hot key and on
 *       10,000 keys; the limit is 10^9 per second per key, so every decision is allowed;
 *   <li><b>overshoot</b>: the hot key at limits 1,000, 10,000 and 100,000 per second, leased
 *       panes and log (and plain as the measurement's control). A decision happens somewhere
 *       between the caller's clock reads before the call and after the answer, so each JVM
 *       counts, for every window, the allowed decisions that <em>certainly</em> fell in it (both
 *       reads inside) and those that <em>possibly</em> did (the two intervals overlap); summed
 *       over the JVMs (one machine, one clock, the same clock Redis reads), the most any window
 *       certainly held is a lower bound of the true worst window and the most it possibly held
 *       an upper bound. Windows: 10 consecutive pane-aligned panes (panes), any 1,000 ms
 *       interval (log). A certain count above {@code L} (panes) or {@code L + E} (log) would be
 *       a proven overshoot beyond the stated bound.
 * </ul>
 *
 * Each configuration runs {@code runs} times (default 3), interleaved (run 1 of every
 * configuration, then run 2, ...), so a change of load on the machine spreads over all of them;
 * the load average is printed before every run. Run:
 * <pre>
 * windowpane-bench/run-leasing-benchmark.sh [runs] [threadsPerJvm] [measuredMillis] [filter]
 * </pre>
 * where {@code filter}, a regular expression, keeps the configurations whose label it finds
 * (all by default).
 */
public final class LeasingLoadBenchmark {

  private static final long WARMUP_MILLIS = 2_000;
  private static final long OVERSHOOT_MILLIS = 5_000;
  private static final long START_DELAY_MILLIS = 4_000; // two JVMs start and connect
  private static final int JVMS = 2;

  private LeasingLoadBenchmark() {}

  /** One configuration. */
  record Config(String contender, String algorithm, int keys, long limit, boolean overshoot) {
    String label() {
      return contender + " " + algorithm + " " + (keys == 1 ? "hot" : keys + "-keys")
          + (overshoot ? " L=" + limit : "");
    }
  }

  /** One run's figures. */
  record Run(double decisionsPerSecond, long allowed, long leases, double hitRatio,
      long maxWindow, long maxPossible, long errors, double loadBefore) {}

  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    long measured = args.length > 2 ? Long.parseLong(args[2]) : 10_000;
    List<Config> configs = new ArrayList<>();
    for (int keys : new int[] {1, 10_000}) {
      for (String c : List.of("incr", "plain", "leased")) {
        configs.add(new Config(c, "panes", keys, 1_000_000_000L, false));
      }
    }
    for (long limit : new long[] {1_000, 10_000, 100_000}) {
      configs.add(new Config("leased", "panes", 1, limit, true));
      configs.add(new Config("leased", "log", 1, limit, true));
    }
    configs.add(new Config("plain", "panes", 1, 10_000, true));
    configs.add(new Config("plain", "log", 1, 10_000, true));
    for (String c : List.of("etcd-plain", "etcd-leased")) {
      configs.add(new Config(c, "panes", 1, 1_000_000_000L, false));
    }
    configs.add(new Config("etcd-leased", "panes", 1, 10_000, true));
    if (args.length > 3) {
      java.util.regex.Pattern keep = java.util.regex.Pattern.compile(args[3]);
      configs.removeIf(c -> !keep.matcher(c.label()).find());
    }

    Map<Config, List<Run>> results = new LinkedHashMap<>();
    try (RedisServer redis = RedisServer.start(); EtcdServer etcd = EtcdServer.start()) {
      System.out.printf(Locale.ROOT, "etcd %s; redis %s; %d client JVMs x %d threads; warmup %d ms,"
              + " measured %d ms (overshoot: %d ms); %d runs each, interleaved%n", etcd.endpoint(),
          redis.uri(),
          JVMS, threads, WARMUP_MILLIS, measured, OVERSHOOT_MILLIS, runs);
      System.out.printf("machine: %d processors, %s, %s%n",
          Runtime.getRuntime().availableProcessors(), Machine.cpuModel(),
          System.getProperty("java.runtime.version"));
      for (int r = 0; r < runs; r++) {
        for (Config c : configs) {
          String uri = c.contender().startsWith("etcd-") ? etcd.endpoint() : redis.uri();
          Run run = runOnce(uri, c, threads, c.overshoot() ? OVERSHOOT_MILLIS : measured,
              "wpl" + r + "-" + configs.indexOf(c) + "-" + System.currentTimeMillis());
          results.computeIfAbsent(c, k -> new ArrayList<>()).add(run);
          System.out.printf(Locale.ROOT, "  run %d %-32s %,14.0f decisions/s  allowed %,d"
                  + "  leases %,d  hit %.4f  max window %,d..%,d  errors %,d  load %.2f%n", r + 1,
              c.label(), run.decisionsPerSecond(), run.allowed(), run.leases(), run.hitRatio(),
              run.maxWindow(), run.maxPossible(), run.errors(), run.loadBefore());
        }
      }
    }
    report(results, threads, measured);
  }

  private static Run runOnce(String uri, Config c, int threads, long measured, String namespace)
      throws Exception {
    double load = loadAverage();
    long start = System.currentTimeMillis() + START_DELAY_MILLIS;
    List<Process> children = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    for (int j = 0; j < JVMS; j++) {
      Path file = c.overshoot() ? Files.createTempFile("wp-leasing-", ".txt") : null;
      files.add(file);
      children.add(new ProcessBuilder(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xms512m", "-Xmx512m", "-cp", System.getProperty("java.class.path"),
          LeasingNode.class.getName(), uri, c.contender(), c.algorithm(),
          Integer.toString(c.keys()), Integer.toString(threads), Long.toString(WARMUP_MILLIS),
          Long.toString(measured), Long.toString(c.limit()), namespace, Long.toString(start),
          file == null ? "-" : file.toString()))
          .redirectError(ProcessBuilder.Redirect.INHERIT).start());
    }
    long decisions = 0;
    long allowed = 0;
    long leases = 0;
    double hit = 0;
    long errors = 0;
    for (Process p : children) {
      String result = null;
      try (BufferedReader out = new BufferedReader(
          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          if (line.startsWith("RESULT ")) {
            result = line;
          }
        }
      }
      if (!p.waitFor(measured + 60_000, TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("a client JVM overstayed: " + c.label());
      }
      if (result == null) {
        throw new IllegalStateException("a client JVM gave no result: " + c.label());
      }
      String[] f = result.split(" ");
      decisions += Long.parseLong(f[1]);
      allowed += Long.parseLong(f[2]);
      leases += Long.parseLong(f[3]);
      hit += Double.parseDouble(f[5]) / JVMS;
      errors += Long.parseLong(f[6]);
    }
    long maxCertain = -1;
    long maxPossible = -1;
    if (c.overshoot()) {
      long[] certain = null;
      long[] possible = null;
      for (Path file : files) {
        List<String> lines = Files.readAllLines(file);
        Files.delete(file);
        if (certain == null) {
          certain = new long[lines.size()];
          possible = new long[lines.size()];
        }
        for (int a = 0; a < lines.size(); a++) {
          String[] f = lines.get(a).split(" ");
          certain[a] += Long.parseLong(f[0]);
          possible[a] += Long.parseLong(f[1]);
        }
      }
      boolean panes = !c.algorithm().equals("log");
      for (int a = 0; a < certain.length; a++) {
        if (panes && Math.floorMod(start + a, 100) != 0) {
          continue; // a pane window starts on a pane edge
        }
        maxCertain = Math.max(maxCertain, certain[a]);
        maxPossible = Math.max(maxPossible, possible[a]);
      }
    }
    return new Run(decisions * 1000.0 / measured, allowed, leases, hit, maxCertain, maxPossible,
        errors, load);
  }

  private static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (Exception e) {
      return -1;
    }
  }

  private static void report(Map<Config, List<Run>> results, int threads, long measured) {
    System.out.printf("%nthroughput, %d JVMs x %d threads (median [min, max] of the runs)%n",
        JVMS, threads);
    System.out.println("| configuration | decisions/s | x incr | x plain (same backend) |"
        + " local hit ratio | leases/s | errors | load avg |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---|");
    for (int keys : new int[] {1, 10_000}) {
      double incr = median(results, "incr", keys);
      double redisPlain = median(results, "plain", keys);
      double etcdPlain = median(results, "etcd-plain", keys);
      results.forEach((c, runs) -> {
        if (c.overshoot() || c.keys() != keys) {
          return;
        }
        double m = medianOf(runs, Run::decisionsPerSecond);
        double plain = c.contender().startsWith("etcd-") ? etcdPlain : redisPlain;
        System.out.printf(Locale.ROOT, "| %s | %,.0f [%,.0f, %,.0f] | %.2f | %.2f | %.4f | %,.0f |"
                + " %,d | %s |%n", c.label(), m, min(runs), max(runs), m / incr, m / plain,
            medianOf(runs, Run::hitRatio),
            medianOf(runs, r -> r.leases() * 1000.0 / (WARMUP_MILLIS + measured)),
            runs.stream().mapToLong(Run::errors).sum(), loads(runs));
      });
    }
    System.out.printf("%novershoot, hot key, %d JVMs x %d threads: most allowed in any window"
        + " (panes: 10 pane-aligned panes; log: any 1,000 ms), certainly..possibly, all runs%n",
        JVMS, threads);
    System.out.println("| configuration | limit L | max window per run (certain..possible) |"
        + " worst certain - L | stated bound | load avg |");
    System.out.println("|---|---:|---|---:|---|---|");
    results.forEach((c, runs) -> {
      if (!c.overshoot()) {
        return;
      }
      long worst = runs.stream().mapToLong(Run::maxWindow).max().orElse(-1);
      String bound;
      if (c.contender().equals("plain")) {
        bound = "0 (no leasing)";
      } else if (c.algorithm().equals("panes")) {
        bound = "0";
      } else {
        double rate = medianOf(runs, r -> r.allowed() / (OVERSHOOT_MILLIS / 1000.0));
        long slice = (long) (Leasing.DEFAULT_MAX_SHARE * c.limit());
        long e = Math.min(JVMS * slice,
            (long) Math.ceil(rate * Leasing.DEFAULT_LOG_LIFETIME_MILLIS / 1000.0));
        bound = String.format(Locale.ROOT, "E <= min(N x S, R x D) = min(%d x %d, %.0f/s x %d ms)"
            + " = %d", JVMS, slice, rate, Leasing.DEFAULT_LOG_LIFETIME_MILLIS, e);
      }
      StringBuilder perRun = new StringBuilder();
      for (Run r : runs) {
        perRun.append(perRun.length() == 0 ? "" : ", ")
            .append(String.format(Locale.ROOT, "%,d..%,d", r.maxWindow(), r.maxPossible()));
      }
      System.out.printf(Locale.ROOT, "| %s | %,d | %s | %,d | %s | %s |%n", c.label(), c.limit(),
          perRun, worst - c.limit(), bound, loads(runs));
    });
  }

  private static double median(Map<Config, List<Run>> results, String contender, int keys) {
    for (Map.Entry<Config, List<Run>> e : results.entrySet()) {
      Config c = e.getKey();
      if (!c.overshoot() && c.keys() == keys && c.contender().equals(contender)) {
        return medianOf(e.getValue(), Run::decisionsPerSecond);
      }
    }
    return Double.NaN;
  }

  private static double medianOf(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
    double[] v = runs.stream().mapToDouble(f).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static double min(List<Run> runs) {
    return runs.stream().mapToDouble(Run::decisionsPerSecond).min().orElse(Double.NaN);
  }

  private static double max(List<Run> runs) {
    return runs.stream().mapToDouble(Run::decisionsPerSecond).max().orElse(Double.NaN);
  }

  private static String loads(List<Run> runs) {
    StringBuilder sb = new StringBuilder();
    for (Run r : runs) {
      sb.append(sb.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f",
          r.loadBefore()));
    }
    return sb.toString();
  }
}
