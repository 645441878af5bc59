package io.windowpane.bench.etcd;

import io.windowpane.bench.redis.Json;
import io.windowpane.bench.redis.Result;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/** Prints the etcd results as tables and turns them into the values of the JSON result file. */
final class EtcdReport {

  /** The engine's aims, as windowpane ÷ naive CAS: on a hot key (no give-ups), on many keys. */
  static final double HOT_TARGET = 3.0;
  static final double MANY_TARGET = 0.8;

  private EtcdReport() {}

  /** One scenario at one thread count: every contender. */
  static void print(List<EtcdRow> rows, PrintStream out) {
    Optional<Result> put = find(rows, EtcdContenderKind.PUT);
    Optional<Result> naive = find(rows, EtcdContenderKind.NAIVE_CAS);
    out.printf(Locale.ROOT, "%-16s %11s %6s %7s %9s %9s %9s %9s %9s %7s %7s %7s %7s %8s%n",
        "contender", "decisions/s", "x put", "x naive", "p50 ms", "p99 ms", "p99.9 ms",
        "max ms", "allowed", "gaveup", "errors", "txn/d", "get/d", "retry/d");
    for (EtcdRow row : rows) {
      Result r = row.result();
      if (r.seconds() == 0) {
        out.printf(Locale.ROOT, "%-16s %11s  %s%n", r.contender(), "unavailable",
            r.firstError().orElse(""));
        continue;
      }
      Histogram h = r.latency();
      out.printf(Locale.ROOT, "%-16s %11s %6s %7s %9s %9s %9s %9s %9s %7d %7d %7.2f %7.2f %8.2f%n",
          r.contender(), String.format(Locale.ROOT, "%,.0f", r.decisionsPerSecond()),
          ratio(r, put), ratio(r, naive), millis(h, 50), millis(h, 99), millis(h, 99.9),
          h.getTotalCount() == 0 ? "-" : String.format(Locale.ROOT, "%.1f", h.getMaxValue() / 1e6),
          r.counted() > 0 ? "(puts)" : String.format(Locale.ROOT, "%,d", r.allowed()),
          gaveUp(row),
          r.errors(), row.perDecision(row.counts().transactions()),
          row.perDecision(row.counts().reads()), row.perDecision(row.counts().retries()));
      if (r.errors() > 0 || r.decisions() == 0 || r.stuckThreads() > 0) {
        r.firstError().ifPresent(e -> out.printf("%16s   first error: %s%n", "", e));
      }
      if (r.stuckThreads() > 0) {
        out.printf("%16s   %d caller threads did not stop: counts are partial%n", "",
            r.stuckThreads());
      }
    }
  }

  /** The ratios windowpane ÷ naive CAS against the targets, one line per scenario and threads. */
  static void printTargets(List<List<EtcdRow>> groups, PrintStream out) {
    out.println("targets: windowpane-etcd / naive-cas >= " + HOT_TARGET
        + "x on the hot key with no give-ups; >= " + MANY_TARGET + "x on many keys");
    for (List<EtcdRow> rows : groups) {
      Optional<EtcdRow> wp = row(rows, EtcdContenderKind.WINDOWPANE);
      Optional<EtcdRow> naive = row(rows, EtcdContenderKind.NAIVE_CAS);
      if (wp.isEmpty() || naive.isEmpty() || wp.get().result().seconds() == 0
          || naive.get().result().seconds() == 0) {
        continue;
      }
      Result w = wp.get().result();
      Result n = naive.get().result();
      boolean hot = w.scenario().equals("hot-key");
      double x = w.decisionsPerSecond() / n.decisionsPerSecond();
      long giveUps = gaveUp(wp.get()) + w.errors();
      boolean met = hot ? x >= HOT_TARGET && giveUps == 0 : x >= MANY_TARGET;
      out.printf(Locale.ROOT, "  %-12s %3d threads: %,.0f / %,.0f = %.2fx (target %.1fx%s)"
              + "; windowpane give-ups+errors %d, naive give-ups %d: %s%n",
          w.scenario(), wp.get().threads(), w.decisionsPerSecond(), n.decisionsPerSecond(), x,
          hot ? HOT_TARGET : MANY_TARGET, hot ? ", no give-ups" : "", giveUps, n.gaveUp(),
          met ? "MET" : "MISSED");
    }
  }

  /**
   * Give-ups in the measured interval: the naive loop's {@code GAVE_UP} outcomes of calls started
   * in it (as its decisions are counted), the engine's exhausted budgets from its metrics (those
   * calls throw, and also count as errors).
   */
  static long gaveUp(EtcdRow row) {
    return row.result().contender().equals(EtcdContenderKind.WINDOWPANE.label())
        ? row.counts().gaveUp() : row.result().gaveUp();
  }

  private static Optional<EtcdRow> row(List<EtcdRow> rows, EtcdContenderKind kind) {
    return rows.stream().filter(r -> r.result().contender().equals(kind.label())).findFirst();
  }

  private static Optional<Result> find(List<EtcdRow> rows, EtcdContenderKind kind) {
    return row(rows, kind).map(EtcdRow::result).filter(r -> r.seconds() > 0);
  }

  private static String ratio(Result r, Optional<Result> base) {
    return base.filter(b -> b.decisionsPerSecond() > 0)
        .map(b -> String.format(Locale.ROOT, "%.2f", r.decisionsPerSecond() / b.decisionsPerSecond()))
        .orElse("-");
  }

  private static String millis(Histogram h, double percentile) {
    return h.getTotalCount() == 0 ? "-"
        : String.format(Locale.ROOT, "%.2f", h.getValueAtPercentile(percentile) / 1e6);
  }

  /** A row as JSON values: latencies in microseconds. */
  static Map<String, Object> json(EtcdRow row) {
    Result r = row.result();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("contender", r.contender());
    m.put("scenario", r.scenario());
    m.put("threads", row.threads());
    m.put("available", r.seconds() > 0);
    m.put("seconds", r.seconds());
    m.put("decisions", r.decisions());
    m.put("decisionsPerSecond", r.decisionsPerSecond());
    m.put("latencyMicros", Json.latencyMicros(r.latency()));
    m.put("allowed", r.allowed());
    m.put("denied", r.denied());
    m.put("puts", r.counted());
    m.put("gaveUp", gaveUp(row));
    m.put("errors", r.errors());
    m.put("firstError", r.firstError());
    m.put("stuckThreads", r.stuckThreads());
    EtcdCounts c = row.counts();
    Map<String, Object> counts = new LinkedHashMap<>();
    counts.put("operations", c.operations());
    counts.put("transactions", c.transactions());
    counts.put("reads", c.reads());
    counts.put("retries", c.retries());
    counts.put("gaveUp", c.gaveUp());
    m.put("clientCounts", counts);
    m.put("transactionsPerDecision", row.perDecision(c.transactions()));
    m.put("retriesPerDecision", row.perDecision(c.retries()));
    return m;
  }
}
