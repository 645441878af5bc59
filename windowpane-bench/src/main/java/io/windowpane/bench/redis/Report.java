package io.windowpane.bench.redis;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Prints results as a table and turns them into the values of the JSON result file. */
final class Report {

  private Report() {}

  /** One table of every contender's result in one scenario, then their server commands. */
  static void print(List<Result> results, PrintStream out) {
    print(results, out, "decisions/s");
  }

  /** As above, with {@code rate} heading the throughput column (e.g. {@code "calls/s"}). */
  static void print(List<Result> results, PrintStream out, String rate) {
    int width = Math.max(20, results.stream().mapToInt(r -> r.contender().length()).max().orElse(0));
    String column = "%-" + width + "s";
    out.printf(Locale.ROOT, column + " %12s %9s %9s %9s %9s %11s %11s %8s %7s %9s %9s %9s%n",
        "contender", rate, "p50 us", "p99 us", "p99.9 us", "max us", "allowed",
        "denied", "gave up", "errors", "srv cpu%", "cpu us/op", "cli us/op");
    for (Result r : results) {
      if (r.seconds() == 0) {
        out.printf(Locale.ROOT, column + " %12s%n", r.contender(), "unavailable");
        continue;
      }
      Histogram h = r.latency();
      boolean counts = r.counted() > 0 && r.allowed() + r.denied() == 0;
      out.printf(Locale.ROOT, column + " %12s %9s %9s %9s %9s %11s %11s %,8d %,7d %9s %9s %9s%n",
          r.contender(), String.format(Locale.ROOT, r.decisionsPerSecond() < 100 ? "%,.2f" : "%,.0f",
              r.decisionsPerSecond()), micros(h, 50), micros(h, 99), micros(h, 99.9),
          h.getTotalCount() == 0 ? "-" : String.format(Locale.ROOT, "%,.0f", h.getMaxValue() / 1e3),
          counts ? "(counts)" : String.format(Locale.ROOT, "%,d", r.allowed()),
          counts ? "-" : String.format(Locale.ROOT, "%,d", r.denied()),
          r.gaveUp(), r.errors(),
          r.serverCpu().map(c -> String.format(Locale.ROOT, "%.0f", 100 * (c.user() + c.sys()) / r.seconds())).orElse("-"),
          r.serverCpu().filter(c -> r.decisions() > 0)
              .map(c -> String.format(Locale.ROOT, "%.1f", 1e6 * (c.user() + c.sys()) / r.decisions())).orElse("-"),
          Double.isNaN(r.clientMicrosPerDecision()) ? "-"
              : String.format(Locale.ROOT, "%.1f", r.clientMicrosPerDecision()));
    }
    out.println("  server commands: calls per decision x usec_per_call (INFO commandstats; commands"
        + " run inside scripts and functions count too)");
    for (Result r : results) {
      StringBuilder line = new StringBuilder();
      long calls = Math.max(1, r.decisions() + r.gaveUp());
      r.commands().forEach((name, stat) -> line.append(String.format(Locale.ROOT,
          "  %s %.2f x %.2fus%s", name, stat.calls() / (double) calls, stat.usecPerCall(),
          stat.failedCalls() > 0 ? " (" + stat.failedCalls() + " failed)" : "")));
      out.printf(Locale.ROOT, "  " + column + "%s%n", r.contender(), line.length() == 0 ? "  -" : line);
      if (r.errors() > 0 || r.decisions() == 0 || r.stuckThreads() > 0) {
        r.firstError().ifPresent(e -> out.printf("  " + column + "  first error: %s%n", "", e));
      }
      if (r.stuckThreads() > 0) {
        out.printf("  " + column + "  %d caller threads did not stop: counts are partial%n", "",
            r.stuckThreads());
      }
    }
  }

  private static String micros(Histogram h, double percentile) {
    return h.getTotalCount() == 0 ? "-"
        : String.format(Locale.ROOT, "%,.1f", h.getValueAtPercentile(percentile) / 1e3);
  }

  /** A result as JSON values: latencies in microseconds. */
  static Map<String, Object> json(Result r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("contender", r.contender());
    m.put("scenario", r.scenario());
    m.put("available", r.seconds() > 0);
    m.put("seconds", r.seconds());
    m.put("decisions", r.decisions());
    m.put("decisionsPerSecond", r.decisionsPerSecond());
    m.put("latencyMicros", Json.latencyMicros(r.latency()));
    m.put("allowed", r.allowed());
    m.put("denied", r.denied());
    m.put("counted", r.counted());
    m.put("gaveUp", r.gaveUp());
    m.put("errors", r.errors());
    m.put("firstError", r.firstError());
    m.put("stuckThreads", r.stuckThreads());
    Map<String, Object> commands = new LinkedHashMap<>();
    r.commands().forEach((name, stat) -> {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("calls", stat.calls());
      c.put("usecPerCall", stat.usecPerCall());
      c.put("failedCalls", stat.failedCalls());
      commands.put(name, c);
    });
    m.put("serverCommands", commands);
    m.put("clientCpuSeconds", Double.isNaN(r.clientCpuSeconds()) ? null : r.clientCpuSeconds());
    m.put("serverCpuSeconds", r.serverCpu().map(c -> {
      Map<String, Object> cpu = new LinkedHashMap<>();
      cpu.put("user", c.user());
      cpu.put("sys", c.sys());
      return cpu;
    }));
    return m;
  }
}
