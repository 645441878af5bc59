package io.windowpane.testkit.replay;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.Summary;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.ReplayBatch;
import io.windowpane.spi.StatsStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Replays for the tests of an engine's {@code replayAllAsync}: the same batches sent as one call
 * to one store and one by one to a twin store (another name), then every key of both read back
 * alike. Keys are {@code k0} to {@code k19}; times are around {@code base + 9,500}, for a
 * {@code base} on a whole 10 s.
 */
public final class ReplayBatches {

  /** The keys batches touch: {@code k0} to {@code k19}. */
  public static final int KEYS = 20;

  private static final Duration TEN_SECONDS = Duration.ofSeconds(10);

  private ReplayBatches() {}

  /**
   * 65 batches over {@link #KEYS} keys at times around {@code base + 9,500}: in now's pane, in
   * older panes, in the previous fixed window, too old for every window, in the future; the
   * last repeats the first (same key, same id).
   */
  public static List<ReplayBatch> batches(long base, String idPrefix) {
    long[] times = {base + 9_500, base + 500, base + 3_250, base - 1, base - 15_000,
        Long.MAX_VALUE, base + 8_999};
    List<ReplayBatch> out = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      out.add(new ReplayBatch("k" + (i % KEYS), 1 + i % 5, null, times[i % times.length],
          idPrefix + i));
    }
    out.add(out.get(0));
    return out;
  }

  /**
   * Half the ids of {@code batches(base, "b")} (with other counts: a landed id changes
   * nothing), half new ones.
   */
  public static List<ReplayBatch> mixed(long base) {
    List<ReplayBatch> out = new ArrayList<>();
    List<ReplayBatch> landed = batches(base, "b");
    for (int i = 0; i < 32; i++) {
      ReplayBatch b = landed.get(2 * i);
      out.add(new ReplayBatch(b.key(), 100, null, b.atMillis(), b.replayId()));
      out.add(new ReplayBatch("k" + (i % KEYS), 2, null, base + 100 * i, "new" + i));
    }
    return out;
  }

  /** {@code batches} with values: {@code count} values from {@code 0.5 * (i + 1)} up. */
  public static List<ReplayBatch> withValues(List<ReplayBatch> batches) {
    List<ReplayBatch> out = new ArrayList<>();
    for (int i = 0; i < batches.size(); i++) {
      ReplayBatch b = batches.get(i);
      double[] values = new double[(int) b.count()];
      for (int v = 0; v < values.length; v++) {
        values[v] = 0.5 * (i + 1) + v;
      }
      out.add(new ReplayBatch(b.key(), b.count(), values, b.atMillis(), b.replayId()));
    }
    return out;
  }

  /** Panes of 1 s, a weighted window of 10 s and a log of 1 min, with 10, 30 and 50 permits. */
  public static Quota quota() {
    return Quota.of(Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10)),
        Limit.of(30, WindowSpec.weighted(TEN_SECONDS)),
        Limit.of(50, WindowSpec.log(Duration.ofMinutes(1))));
  }

  /** Waits up to 30 s for {@code stage}; its failure is thrown unchecked. */
  public static void await(CompletionStage<Void> stage) {
    stage.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  /** Replays each batch on its own, in order, each awaited. */
  public static void oneByOne(CounterStore store, List<ReplayBatch> batches) {
    for (ReplayBatch b : batches) {
      await(store.replayAsync(b.key(), b.count(), b.atMillis(), b.replayId()));
    }
  }

  /** Replays each batch on its own, in order, each awaited. */
  public static void oneByOne(LimiterStore store, List<ReplayBatch> batches) {
    for (ReplayBatch b : batches) {
      await(store.replayAsync(b.key(), b.count(), b.atMillis(), b.replayId()));
    }
  }

  /** Replays each batch's values on their own, in order, each awaited. */
  public static void oneByOne(StatsStore store, List<ReplayBatch> batches) {
    for (ReplayBatch b : batches) {
      await(store.replayAsync(b.key(), b.values(), b.atMillis(), b.replayId()));
    }
  }

  /** The count of each key of {@code k0} to {@code k19}. */
  public static List<Long> counts(CounterStore store) {
    return counts(store, KEYS);
  }

  /** The count of each key of {@code k0} to {@code k<keys - 1>}. */
  public static List<Long> counts(CounterStore store, int keys) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < keys; i++) {
      out.add(store.count("k" + i));
    }
    return out;
  }

  /**
   * Each key's decision by {@code ask} (a peek, or an acquire of one permit, which records when
   * allowed, so twins must be asked alike): allowed, remaining, the denying limit's permits,
   * retry after.
   */
  public static List<String> decisions(Function<String, Decision> ask) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      Decision d = ask.apply("k" + i);
      out.add(d.allowed() + "/" + d.remaining() + "/" + d.deniedBy().map(Limit::permits)
          .orElse(0L) + "/" + d.retryAfterMillis());
    }
    return out;
  }

  /** Each key's summary: count, sum, min, max, p50. */
  public static List<String> summaries(StatsStore store) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      Summary s = store.summary("k" + i);
      out.add(s.isEmpty() ? "empty" : s.count() + "/" + s.sum() + "/" + s.min() + "/" + s.max()
          + "/" + s.quantile(0.5));
    }
    return out;
  }
}
