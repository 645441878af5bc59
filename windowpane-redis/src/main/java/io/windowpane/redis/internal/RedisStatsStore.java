package io.windowpane.redis.internal;

import io.windowpane.LogBuckets;
import io.windowpane.LogHistogram;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.spi.ReplayBatch;
import io.windowpane.spi.StatsStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/*
 * Design note. A statistics window in Redis is one call per operation, like the counters: a
 * histogram window records with wp_record and summarizes with wp_summary, which merges the live
 * panes on the server and replies with count, sum, min, max and the merged buckets only (never
 * the panes, never raw values). Its two keys, the panes' hash and the window aggregate of
 * their bucket counts (which lets a summary read O(P + buckets in the window) fields rather than
 * every pane's buckets), go to both functions; wp_holds reads the first only. An exact window
 * records with wp_xrecord and summarizes with wp_xsummary, which replies with the values in the
 * window, sorted and summed here by Summary.ofValues. Doubles travel as decimal strings that
 * read back as the same double both ways (Double.toString to the server, %.17g back), so sums,
 * mins and maxes are bit-exact.
 */

/**
 * A statistics window in Redis: {@code record} and {@code summary} are one call each of the
 * library's statistics functions; {@code summaryAll} and {@code recordAllAsync} are one call of
 * {@code wp_summary_all} (or {@code wp_xsummary_all}), {@code wp_record_all} (or
 * {@code wp_xrecord_all}) per node ({@link Batch}); async forms never block.
 * A record refused by a full exact window fails with
 * {@link io.windowpane.CapacityExceededException} and records nothing. A replay is one call of
 * {@code wp_replay_record} or {@code wp_replay_xrecord} (many replays one call of their
 * {@code _all} form per node); into a full exact window it records the
 * values that fit and drops the rest rather than fail (a chain would retry it for ever).
 */
final class RedisStatsStore implements StatsStore {

  private final RedisSeam seam;
  private final TimeArg time;
  private final long guardMillis;
  private final String prefix;
  private final String suffix;
  private final boolean exact;
  private final LogBuckets buckets; // null for exact windows
  /** ARGV after the time: W, P, accuracy, minIndex, span (histogram); W, maxValues (exact). */
  private final String[] specArgs;
  /** ARGV of a summary: slot 0 (time) left to fill; cloned per call. */
  private final String[] summaryArgs;
  private final String[] holdsArgs;
  private final Summary empty;
  /** The window's top-keys sketch; null when top keys are off. */
  private final TopSketch top;

  RedisStatsStore(RedisSeam seam, TimeArg time, long guardMillis, String name, StatsSpec spec) {
    this.seam = seam;
    this.time = time;
    this.guardMillis = guardMillis;
    this.prefix = Layout.statsPrefix(name, spec);
    this.suffix = Layout.statsSuffix(name, spec);
    this.exact = spec.isExact();
    this.buckets = spec.buckets();
    String window = Long.toString(spec.window().windowMillis());
    if (exact) {
      specArgs = new String[] {window, Integer.toString(spec.maxValues())};
      summaryArgs = new String[] {null, window};
      holdsArgs = new String[] {null, "1", "l", window, "1"};
      empty = Summary.ofValues(new double[0]);
    } else {
      specArgs = Layout.histogramArgs(spec);
      summaryArgs = new String[1 + specArgs.length];
      System.arraycopy(specArgs, 0, summaryArgs, 1, specArgs.length);
      holdsArgs = new String[] {null, "1", "h", window, specArgs[1]};
      empty = Summary.ofHistogram(0, 0, Double.NaN, Double.NaN, new LogHistogram(buckets));
    }
    this.top = spec.topKeys() == 0 ? null : new TopSketch(seam, guardMillis,
        (exact ? "x:" : "s:") + name, "", spec.window(), spec.topKeys());
  }

  /** Histogram: the panes' hash and its window aggregate; exact: the sorted set and meta hash. */
  private String[] keys(String key) {
    String tagged = prefix + key + suffix;
    return new String[] {tagged, tagged + (exact ? ":m" : Layout.AGGREGATE)};
  }

  /** The keys wp_holds reads: a histogram's hash (its expiry stands for both keys), or both. */
  private String[] holdsKeys(String key) {
    return exact ? keys(key) : new String[] {prefix + key + suffix};
  }

  private CompletableFuture<Long> recordCall(String key, double[] values) {
    String now = time.now();
    CompletableFuture<Long> call = plainRecordCall(key, values, now);
    if (top == null || values.length == 0) {
      return call;
    }
    return call.thenApply(held -> { // top keys on: one event per value, fed after the record
      top.add(now, key, values.length);
      return held;
    });
  }

  @Override
  public java.util.Optional<List<io.windowpane.TopKey>> topKeys(int n) {
    return top == null ? java.util.Optional.empty() : top.top(time.now(), n);
  }

  private CompletableFuture<Long> plainRecordCall(String key, double[] values, String now) {
    String[] args = new String[1 + specArgs.length + values.length];
    args[0] = now;
    System.arraycopy(specArgs, 0, args, 1, specArgs.length);
    int at = 1 + specArgs.length;
    for (double v : values) {
      args[at++] = Double.toString(v); // reads back as the same double
    }
    return seam.callInteger(exact ? "wp_xrecord" : "wp_record", keys(key), args);
  }

  /**
   * One call of wp_record_at (histogram) or wp_xrecord_at (exact): judged and placed on the
   * server; a full exact window fails the stage with
   * {@link io.windowpane.CapacityExceededException}, nothing recorded. With top keys on, a
   * recorded batch feeds the sketch at now (not awaited).
   */
  @Override
  public CompletionStage<io.windowpane.spi.EventTimeResult> recordAtAsync(String key,
      double[] values, long atMillis, long maxAheadMillis) {
    String[] rest = new String[specArgs.length + values.length];
    System.arraycopy(specArgs, 0, rest, 0, specArgs.length);
    for (int i = 0; i < values.length; i++) {
      rest[specArgs.length + i] = Double.toString(values[i]); // reads back as the same double
    }
    String[] args = EventTimeCalls.args(time, atMillis, maxAheadMillis, rest);
    CompletionStage<io.windowpane.spi.EventTimeResult> call = EventTimeCalls.call(seam,
        exact ? "wp_xrecord_at" : "wp_record_at", keys(key), args);
    if (top == null) {
      return call;
    }
    return call.thenApply(r -> {
      if (r.verdict() == io.windowpane.spi.EventTimeResult.Verdict.RECORDED) {
        top.add(args[0], key, values.length);
      }
      return r;
    });
  }

  @Override
  public CompletionStage<Void> replayAsync(String key, double[] values, long atMillis,
      String replayId) {
    String[] rest = new String[specArgs.length + values.length];
    System.arraycopy(specArgs, 0, rest, 0, specArgs.length);
    for (int i = 0; i < values.length; i++) {
      rest[specArgs.length + i] = Double.toString(values[i]); // reads back as the same double
    }
    return Replays.call(seam, exact ? "wp_replay_xrecord" : "wp_replay_record", time, keys(key),
        atMillis, replayId, rest);
  }

  /** wp_replay_record_all or wp_replay_xrecord_all: one call per node ({@link Replays}). */
  @Override
  public CompletionStage<Void> replayAllAsync(List<ReplayBatch> batches) {
    for (ReplayBatch b : batches) {
      if (b.values() == null) {
        return CompletableFuture.failedFuture(new IllegalArgumentException(
            "values must not be null in a statistics replay, key " + b.key()));
      }
    }
    return Replays.callAll(seam, exact ? "wp_replay_xrecord_all" : "wp_replay_record_all", time,
        batches, this::keys, specArgs, (b, args) -> {
          args.add(Integer.toString(b.values().length));
          for (double v : b.values()) {
            args.add(Double.toString(v)); // reads back as the same double
          }
        });
  }

  private CompletableFuture<List<Object>> summaryCall(String key) {
    String[] args = summaryArgs.clone();
    args[0] = time.now();
    return seam.callList(exact ? "wp_xsummary" : "wp_summary", keys(key), args);
  }

  /**
   * The summary of a reply, built where it does no harm: a histogram's (its occupied buckets, a
   * few hundred for data spanning three decades at 1%) on the thread completing the call, an
   * exact window's (parsing and sorting up to 1,000,000 values) on the common pool, off the
   * client's event loop.
   */
  private CompletableFuture<Summary> summaryStage(String key) {
    CompletableFuture<List<Object>> reply = summaryCall(key);
    return exact ? reply.thenApplyAsync(this::exactSummary)
        : reply.thenApply(this::histogramSummary);
  }

  private Summary summaryOf(List<Object> reply) {
    return exact ? exactSummary(reply) : histogramSummary(reply);
  }

  /** {@code [count, sum, min, max, key1, count1, ...]}: doubles as strings, the rest integers. */
  private Summary histogramSummary(List<Object> reply) {
    long count = (Long) reply.get(0);
    if (count == 0) {
      return empty;
    }
    LogHistogram histogram = new LogHistogram(buckets);
    for (int i = 4; i + 1 < reply.size(); i += 2) {
      histogram.add((int) (long) (Long) reply.get(i), (Long) reply.get(i + 1));
    }
    return Summary.ofHistogram(count, parse(reply.get(1)), parse(reply.get(2)),
        parse(reply.get(3)), histogram);
  }

  /** The values in the window, as strings. */
  private Summary exactSummary(List<Object> reply) {
    double[] values = new double[reply.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = parse(reply.get(i));
    }
    return Summary.ofValues(values);
  }

  /** A double from the library: %.17g, or inf, -inf, nan (an overflowed sum). */
  static double parse(Object reply) {
    String s = (String) reply;
    switch (s) {
      case "inf":
        return Double.POSITIVE_INFINITY;
      case "-inf":
        return Double.NEGATIVE_INFINITY;
      case "nan":
        return Double.NaN;
      default:
        return Double.parseDouble(s);
    }
  }

  @Override
  public void record(String key, double[] values) {
    Calls.await(recordCall(key, values), guardMillis, "record");
  }

  @Override
  public Summary summary(String key) {
    return summaryOf(Calls.await(summaryCall(key), guardMillis, "summary"));
  }

  @Override
  public boolean holdsState(String key) {
    return Calls.holds(seam, time, guardMillis, holdsKeys(key), holdsArgs);
  }

  /**
   * wp_summary_all or wp_xsummary_all: one call per node ({@link Batch}), every key at the same
   * time; the reply holds each key's wp_summary (wp_xsummary) reply.
   */
  private CompletableFuture<List<Object>> summaryAllCall(List<String> keys) {
    String[] args = summaryArgs.clone();
    args[0] = time.now();
    List<String[]> items = new ArrayList<>(keys.size());
    for (String key : keys) {
      items.add(keys(key));
    }
    return Batch.run(seam, items, (k, extra) -> seam.callList(
        exact ? "wp_xsummary_all" : "wp_summary_all", k, Batch.withExtra(args, extra)));
  }

  @SuppressWarnings("unchecked")
  private List<Summary> summariesOf(List<Object> replies) {
    List<Summary> out = new ArrayList<>(replies.size());
    for (Object reply : replies) {
      out.add(summaryOf((List<Object>) reply));
    }
    return out;
  }

  @Override
  public List<Summary> summaryAll(List<String> keys) {
    return summariesOf(Calls.await(summaryAllCall(keys), guardMillis, "summaryAll"));
  }

  @Override
  public CompletionStage<Void> recordAsync(String key, double[] values) {
    return Calls.translated(recordCall(key, values).thenApply(held -> (Void) null), "record");
  }

  /** Values one recordAll call may carry in all; a larger batch is sent item by item. */
  private static final int MAX_BATCH_VALUES = 100_000;

  /**
   * wp_record_all or wp_xrecord_all: one call per node ({@link Batch}), every item at the same
   * time. An item a full exact window refused (-1), or the memory guard (-2, a new key under
   * pressure), fails alone, as its own record would.
   */
  @Override
  public List<CompletionStage<Void>> recordAllAsync(List<String> keys, List<double[]> values) {
    long total = 0;
    for (double[] v : values) {
      total += v.length;
    }
    if (keys.size() < 2 || total > MAX_BATCH_VALUES) {
      return StatsStore.super.recordAllAsync(keys, values);
    }
    String now = time.now();
    List<String[]> items = new ArrayList<>(keys.size());
    for (String key : keys) {
      items.add(keys(key));
    }
    CompletableFuture<List<Long>> replies = Calls.translated(Batch.runItems(seam, items,
        (k, extra, order) -> {
          List<String> args = new ArrayList<>();
          args.add(now);
          java.util.Collections.addAll(args, specArgs);
          args.add(Integer.toString(order.length));
          for (int i : order) {
            args.add(Integer.toString(values.get(i).length));
            for (double v : values.get(i)) {
              args.add(Double.toString(v)); // reads back as the same double
            }
          }
          java.util.Collections.addAll(args, extra);
          return seam.callIntegers(exact ? "wp_xrecord_all" : "wp_record_all", k,
              args.toArray(new String[0]));
        }), "recordAll");
    List<CompletionStage<Void>> out = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      int item = i;
      out.add(replies.thenCompose(r -> {
        if (r.get(item) == NewKeys.REFUSED) {
          seam.refusedCreations(1);
          return CompletableFuture.failedFuture(NewKeys.refused("record", keys.get(item)));
        }
        if (r.get(item) < 0) {
          return CompletableFuture.failedFuture(new io.windowpane.CapacityExceededException(
              "record: the exact window of key " + keys.get(item) + " holds its maxValues"
                  + " already; nothing recorded for this item"));
        }
        if (top != null) { // top keys on: one event per value, fed after the record
          top.add(now, keys.get(item), values.get(item).length);
        }
        return CompletableFuture.completedFuture(null);
      }));
    }
    return out;
  }

  @Override
  public CompletionStage<Summary> summaryAsync(String key) {
    return Calls.translated(summaryStage(key), "summary");
  }

  @Override
  public CompletionStage<List<Summary>> summaryAllAsync(List<String> keys) {
    CompletableFuture<List<Object>> replies = summaryAllCall(keys);
    return Calls.translated(exact ? replies.thenApplyAsync(this::summariesOf)
        : replies.thenApply(this::summariesOf), "summaryAll");
  }
}
