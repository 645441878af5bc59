package io.windowpane.redis.internal;

import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.ReplayBatch;
import io.windowpane.TopKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A sliding-window counter in Redis: {@code add} and {@code count} are one call each of
 * {@code wp_add} / {@code wp_count}, a replay one call of {@code wp_replay} (many replays one
 * call of {@code wp_replay_all} per node); a batch is one
 * call of {@code wp_add_all} / {@code wp_count_all} per node ({@link Batch}), every key at the
 * batch's one time; async forms never block. With top keys on, every add also feeds the window's
 * sketch ({@link TopSketch}: a call of its own, not awaited).
 */
final class RedisCounterStore implements CounterStore {

  private final RedisSeam seam;
  private final TimeArg time;
  private final long guardMillis;
  private final String prefix;
  private final String suffix;
  private final WindowSpec spec;
  private final int keyCount;
  private final String algorithm;
  private final String windowMillis;
  private final String panes;
  /** The window's top-keys sketch; null when top keys are off. */
  private final TopSketch top;
  /** Merges concurrent adds bound for one node into wp_add_all calls; null when off. */
  private final Coalescer<Long> coalescer;

  RedisCounterStore(RedisSeam seam, TimeArg time, long guardMillis, String name,
      WindowSpec spec, boolean coalescing) {
    this.coalescer = coalescing ? new Coalescer<>() : null;
    this.seam = seam;
    this.time = time;
    this.guardMillis = guardMillis;
    this.prefix = Layout.prefix('c', name);
    this.suffix = Layout.counterSuffix(name, spec);
    this.spec = spec;
    this.keyCount = Layout.keyCount(spec);
    this.algorithm = Layout.code(spec);
    this.windowMillis = Long.toString(spec.windowMillis());
    this.panes = Layout.panesArg(spec);
    this.top = spec.topKeys() == 0 ? null
        : new TopSketch(seam, guardMillis, "c:" + name, "", spec, spec.topKeys());
  }

  private String[] keys(String key) {
    String[] out = new String[keyCount];
    Layout.keys(out, 0, prefix + key, suffix, spec);
    return out;
  }

  private CompletableFuture<Long> addCall(String key, long n) {
    String now = time.now();
    CompletableFuture<Long> call = seam.callInteger("wp_add", keys(key),
        new String[] {now, Long.toString(n), algorithm, windowMillis, panes});
    if (top == null) {
      return call;
    }
    return call.thenApply(count -> { // top keys on: feed the sketch, not awaited
      top.add(now, key, n);
      return count;
    });
  }

  @Override
  public Optional<List<TopKey>> topKeys(int n) {
    return top == null ? Optional.empty() : top.top(time.now(), n);
  }

  private CompletableFuture<Long> countCall(String key) {
    return seam.callInteger("wp_count", keys(key),
        new String[] {time.now(), algorithm, windowMillis, panes});
  }

  /**
   * One add: wp_add at once, or, with coalescing on and other adds of this store with the same
   * n on the wire to the key's node, an item of the next wp_add_all.
   */
  private CompletableFuture<Long> coalescedAdd(String key, long n) {
    if (coalescer == null) {
      return addCall(key, n);
    }
    Object route = seam.batchRoute(seam.slot(prefix + key + suffix));
    return coalescer.submit(new Coalescer.LaneKey(route, n), key, () -> addCall(key, n),
        keys -> addAllCall(keys, n));
  }

  @Override
  public long add(String key, long n) {
    return Calls.await(coalescedAdd(key, n), guardMillis, "add");
  }

  @Override
  public long count(String key) {
    return Calls.await(countCall(key), guardMillis, "count");
  }

  @Override
  public boolean holdsState(String key) {
    return Calls.await(seam.callInteger("wp_holds", keys(key),
        new String[] {time.now(), "1", algorithm, windowMillis, panes}), guardMillis,
        "holdsState") == 1;
  }

  /** wp_add_all: one call per node (Batch), every key at the same time. */
  private CompletableFuture<List<Long>> addAllCall(List<String> keys, long n) {
    String now = time.now();
    String[] args = {now, Long.toString(n), algorithm, windowMillis, panes};
    CompletableFuture<List<Long>> call = Batch.run(seam, items(keys),
        (k, extra) -> seam.callIntegers("wp_add_all", k, Batch.withExtra(args, extra)))
        .thenApply(this::refusedAsNull);
    if (top == null) {
      return call;
    }
    return call.thenApply(counts -> { // top keys on: feed the sketch per key, not awaited
      for (String key : keys) {
        top.add(now, key, n);
      }
      return counts;
    });
  }

  /** The counts with null for the items the memory guard refused (-2), which it counts. */
  private List<Long> refusedAsNull(List<Long> counts) {
    int refused = 0;
    for (int i = 0; i < counts.size(); i++) {
      if (counts.get(i) == NewKeys.REFUSED) {
        counts.set(i, null);
        refused++;
      }
    }
    if (refused > 0) {
      seam.refusedCreations(refused);
    }
    return counts;
  }

  /** wp_count_all: one call per node (Batch). */
  private CompletableFuture<List<Long>> countAllCall(List<String> keys) {
    String[] args = {time.now(), algorithm, windowMillis, panes};
    return Batch.run(seam, items(keys),
        (k, extra) -> seam.callIntegers("wp_count_all", k, Batch.withExtra(args, extra)));
  }

  private List<String[]> items(List<String> keys) {
    List<String[]> items = new ArrayList<>(keys.size());
    for (String key : keys) {
      items.add(keys(key));
    }
    return items;
  }

  @Override
  public List<Long> addAll(List<String> keys, long n) {
    return NewKeys.whole(Calls.await(addAllCall(keys, n), guardMillis, "addAll"), keys, "addAll");
  }

  @Override
  public List<Long> countAll(List<String> keys) {
    return Calls.await(countAllCall(keys), guardMillis, "countAll");
  }

  @Override
  public CompletionStage<Long> addAsync(String key, long n) {
    return Calls.translated(coalescedAdd(key, n), "add");
  }

  @Override
  public CompletionStage<Long> countAsync(String key) {
    return Calls.translated(countCall(key), "count");
  }

  @Override
  public CompletionStage<List<Long>> addAllAsync(List<String> keys, long n) {
    return Calls.translated(addAllCall(keys, n)
        .thenApply(counts -> NewKeys.whole(counts, keys, "addAll")), "addAll");
  }

  @Override
  public CompletionStage<List<Long>> countAllAsync(List<String> keys) {
    return Calls.translated(countAllCall(keys), "countAll");
  }

  /**
   * One call of wp_add_at: judged and placed on the server. With top keys on, a recorded event
   * feeds the sketch at now (not awaited), an upper bound as top keys state.
   */
  @Override
  public CompletionStage<io.windowpane.spi.EventTimeResult> addAtAsync(String key, long n,
      long atMillis, long maxAheadMillis) {
    String[] args = EventTimeCalls.args(time, atMillis, maxAheadMillis, Long.toString(n),
        algorithm, windowMillis, panes);
    CompletionStage<io.windowpane.spi.EventTimeResult> call =
        EventTimeCalls.call(seam, "wp_add_at", keys(key), args);
    if (top == null) {
      return call;
    }
    return call.thenApply(r -> {
      if (r.verdict() == io.windowpane.spi.EventTimeResult.Verdict.RECORDED) {
        top.add(args[0], key, n);
      }
      return r;
    });
  }

  @Override
  public CompletionStage<Void> replayAsync(String key, long n, long atMillis, String replayId) {
    return Replays.call(seam, "wp_replay", time, keys(key), atMillis, replayId,
        Long.toString(n), "1", algorithm, windowMillis, panes);
  }

  /** wp_replay_all: one call per node ({@link Replays#callAll}). */
  @Override
  public CompletionStage<Void> replayAllAsync(List<ReplayBatch> batches) {
    return Replays.callAll(seam, time, batches, this::keys,
        new String[] {"1", algorithm, windowMillis, panes});
  }
}
