package io.windowpane.bench.failover;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * A trial's timeline as rows: one per 100 ms bucket ({@link #full}), or one per 100 ms near the
 * instants that matter and one per second elsewhere ({@link #condensed}); as Markdown and JSON.
 */
final class TimelineTable {

  /** How far around an instant the condensed table keeps 100 ms rows. */
  private static final long DETAIL_BEFORE_NANOS = 300_000_000L;
  private static final long DETAIL_AFTER_NANOS = 700_000_000L;

  /** One row: buckets {@code [from, to)} merged. */
  record Row(long fromNanos, long toNanos, long decisions, long allowed, long degraded,
      long errors, long[] byEngine, Histogram latency, Histogram fromSchedule, String events) {

    double decisionsPerSecond() {
      return decisions * 1e9 / (toNanos - fromNanos);
    }

    /** The engine that answered most decisions of the row, "-" if none. */
    String topEngine() {
      int top = -1;
      for (int e = 0; e < byEngine.length; e++) {
        if (byEngine[e] > 0 && (top < 0 || byEngine[e] > byEngine[top])) {
          top = e;
        }
      }
      return top < 0 ? "-" : Timeline.ENGINES[top];
    }

    double degradedShare() {
      return decisions == 0 ? 0 : (double) degraded / decisions;
    }

    double p50Millis() {
      return latency.getTotalCount() == 0 ? Double.NaN : latency.getValueAtPercentile(50) / 1e6;
    }

    double p99Millis() {
      return latency.getTotalCount() == 0 ? Double.NaN : latency.getValueAtPercentile(99) / 1e6;
    }

    double p99FromScheduleMillis() {
      return fromSchedule.getTotalCount() == 0 ? Double.NaN
          : fromSchedule.getValueAtPercentile(99) / 1e6;
    }

    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("fromMillis", fromNanos / 1_000_000);
      m.put("toMillis", toNanos / 1_000_000);
      m.put("decisions", decisions);
      m.put("allowed", allowed);
      m.put("degraded", degraded);
      m.put("errors", errors);
      Map<String, Object> engines = new LinkedHashMap<>();
      for (int e = 0; e < byEngine.length; e++) {
        engines.put(Timeline.ENGINES[e], byEngine[e]);
      }
      m.put("byEngine", engines);
      m.put("p50Millis", p50Millis());
      m.put("p99Millis", p99Millis());
      m.put("maxMillis", latency.getTotalCount() == 0 ? null : latency.getMaxValue() / 1e6);
      m.put("p99FromScheduleMillis", p99FromScheduleMillis());
      m.put("events", events);
      return m;
    }
  }

  private TimelineTable() {}

  /** A row per 100 ms bucket. */
  static List<Row> full(Timeline t) {
    List<Timeline.Bucket> buckets = t.buckets();
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < buckets.size(); i++) {
      rows.add(merge(t, buckets, i, i + 1));
    }
    return rows;
  }

  /**
   * 100 ms rows around the fault, the first fallback answer, the trip, Redis back, the connection
   * back, the first Redis answer and the recovery; 1 s rows elsewhere.
   */
  static List<Row> condensed(Timeline t) {
    List<Timeline.Bucket> buckets = t.buckets();
    long[] marks = marks(t);
    List<Row> rows = new ArrayList<>();
    int i = 0;
    while (i < buckets.size()) {
      if (detailed(i, marks)) {
        rows.add(merge(t, buckets, i, i + 1));
        i++;
        continue;
      }
      int j = i + 1;
      while (j < buckets.size() && j % 10 != 0 && !detailed(j, marks)) {
        j++;
      }
      rows.add(merge(t, buckets, i, j));
      i = j;
    }
    return rows;
  }

  private static long[] marks(Timeline t) {
    return new long[] {t.faultAt(), t.firstFallbackAt(), t.tripAt(), t.restartAt(),
        t.reconnectedAt(), t.firstPrimaryAfterRestartAt(), t.recoveredAt()};
  }

  private static boolean detailed(int bucket, long[] marks) {
    long from = bucket * Timeline.BUCKET_NANOS;
    long to = from + Timeline.BUCKET_NANOS;
    for (long m : marks) {
      if (m != Timeline.NONE && to > m - DETAIL_BEFORE_NANOS && from < m + DETAIL_AFTER_NANOS) {
        return true;
      }
    }
    return false;
  }

  private static Row merge(Timeline t, List<Timeline.Bucket> buckets, int from, int to) {
    long decisions = 0;
    long allowed = 0;
    long degraded = 0;
    long errors = 0;
    long[] byEngine = new long[Timeline.ENGINES.length];
    Histogram latency = new Histogram(Timeline.MAX_LATENCY_NANOS, 2);
    Histogram fromSchedule = new Histogram(Timeline.MAX_LATENCY_NANOS, 2);
    for (int i = from; i < to; i++) {
      Timeline.Bucket b = buckets.get(i);
      decisions += b.decisions.sum();
      allowed += b.allowed.sum();
      degraded += b.degraded.sum();
      errors += b.errors.sum() + b.addErrors.sum();
      for (int e = 0; e < byEngine.length; e++) {
        byEngine[e] += b.byEngine[e].sum();
      }
      latency.add(b.latency);
      fromSchedule.add(b.fromSchedule);
    }
    long fromNanos = from * Timeline.BUCKET_NANOS;
    long toNanos = to * Timeline.BUCKET_NANOS;
    return new Row(fromNanos, toNanos, decisions, allowed, degraded, errors, byEngine, latency,
        fromSchedule, events(t, fromNanos, toNanos));
  }

  /** What happened in {@code [from, to)}, with the millisecond. */
  private static String events(Timeline t, long from, long to) {
    String[] names = {"fault", "first local answer", "redis tripped", "redis back",
        "connection back", "first redis answer", "chain on redis"};
    long[] marks = marks(t);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < marks.length; i++) {
      if (marks[i] != Timeline.NONE && marks[i] >= from && marks[i] < to) {
        out.add(names[i] + " " + marks[i] / 1_000_000);
      }
    }
    for (Timeline.Transition tr : t.transitions()) {
      // the trip and the recovery are named above; list any other change (a false trip, say)
      if (tr.atNanos() >= from && tr.atNanos() < to && tr.atNanos() != t.tripAt()
          && tr.atNanos() != t.recoveredAt()) {
        out.add(tr.engine() + " " + tr.from() + "->" + tr.to() + " " + tr.atNanos() / 1_000_000);
      }
    }
    return String.join("; ", out);
  }

  /** The rows as a Markdown table; times in seconds from the trial's start. */
  static String markdown(List<Row> rows) {
    StringBuilder s = new StringBuilder();
    s.append("| t (s) | decisions/s | p50 ms | p99 ms | p99 from schedule ms | answered most by"
        + " | degraded | errors | events (ms) |\n");
    s.append("|---|--:|--:|--:|--:|---|--:|--:|---|\n");
    for (Row r : rows) {
      s.append(String.format(Locale.ROOT,
          "| %s | %,.0f | %s | %s | %s | %s | %.0f %% | %d | %s |%n",
          span(r), r.decisionsPerSecond(), ms(r.p50Millis()), ms(r.p99Millis()),
          ms(r.p99FromScheduleMillis()), r.topEngine(), 100 * r.degradedShare(), r.errors(),
          r.events()));
    }
    return s.toString();
  }

  private static String span(Row r) {
    double from = r.fromNanos() / 1e9;
    double to = r.toNanos() / 1e9;
    return to - from > 0.15 ? String.format(Locale.ROOT, "%.1f-%.1f", from, to)
        : String.format(Locale.ROOT, "%.1f", from);
  }

  /** Milliseconds with two significant decimals below 10, none above 100. */
  static String ms(double millis) {
    if (Double.isNaN(millis)) {
      return "-";
    }
    if (millis < 1) {
      return String.format(Locale.ROOT, "%.3f", millis);
    }
    if (millis < 10) {
      return String.format(Locale.ROOT, "%.2f", millis);
    }
    if (millis < 100) {
      return String.format(Locale.ROOT, "%.1f", millis);
    }
    return String.format(Locale.ROOT, "%.0f", millis);
  }
}
