package io.windowpane.redis.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/*
 * Design note. A batch (addAll, countAll, tryAcquireAll, summaryAll, replayAllAsync) is one call
 * of a batch function (wp_add_all, wp_count_all, wp_take_all, wp_summary_all, wp_xsummary_all,
 * wp_replay_all, whose items carry arguments of their own: runItems) per place
 * its keys live, not one call per key:
 *
 *   - one server: one call for the whole batch;
 *   - a Redis Cluster through Functions: one call per node. A cluster refuses declared KEYS of
 *     several slots (CROSSSLOT) before any function runs, whatever its flags, but a function
 *     registered with allow-cross-slot-keys may touch keys of every slot of the node it runs on
 *     (checked by hand on Redis 7.0: declared keys of two slots answer CROSSSLOT, keys of other
 *     slots passed in ARGV are served). So the call declares the keys of one slot, by which the
 *     client routes it, and passes the items of the node's other slots as "extra keys" after
 *     the spec;
 *   - a Redis Cluster through EVALSHA (Redis 6, or Functions refused): one call per slot.
 *
 * A call carries at most MAX_ITEMS_PER_CALL items (a longer batch is cut into several calls to
 * the same node, sent back to back), so that one call holds the server for a few milliseconds
 * at most. Every call of a batch is issued before any answer is awaited (pipelined).
 *
 * The client's view of the topology may be old (a slot moved, or is migrating). The function
 * touches every extra key (EXISTS) before it writes anything, so a key the node does not serve
 * fails the call with "non local key" having written nothing; such a call is sent again as one
 * call per slot, declared keys only, which the client routes (MOVED, ASK) as any other call.
 * Nothing else is repeated: a call that failed otherwise (timeout, connection lost) fails the
 * whole batch and is not sent again, so no item is ever recorded twice by the engine (a caller
 * that repeats a failed batch may record again what the failed one had recorded).
 */

/** Sends the items of a batch in as few calls as the topology allows; answers in order. */
final class Batch {

  /** The most items one call carries. */
  static final int MAX_ITEMS_PER_CALL = 1_000;

  private Batch() {}

  /** One call of a batch function over some items. */
  @FunctionalInterface
  interface Call<R> {
    /**
     * Calls the function with {@code keys} in KEYS and {@code extraKeys} after its spec in
     * ARGV; completes with one answer per item, the items of {@code keys} first.
     */
    CompletableFuture<List<R>> send(String[] keys, String[] extraKeys);
  }

  /**
   * One call of a batch function whose items also carry arguments of their own (wp_replay_all):
   * {@link Call#send} plus {@code order}, the indexes in {@code items} of the items the call
   * carries, in the order of their keys (those of {@code keys}, then those of {@code extraKeys}),
   * so that the call passes their arguments in that order.
   */
  @FunctionalInterface
  interface ItemCall<R> {
    CompletableFuture<List<R>> send(String[] keys, String[] extraKeys, int[] order);
  }

  /**
   * The answers of every item, in the order of {@code items} (each item's keys, which share
   * one hash tag).
   */
  static <R> CompletableFuture<List<R>> run(RedisSeam seam, List<String[]> items, Call<R> call) {
    return runItems(seam, items, (keys, extraKeys, order) -> call.send(keys, extraKeys));
  }

  /** {@link #run}, for a function whose items carry arguments of their own. */
  static <R> CompletableFuture<List<R>> runItems(RedisSeam seam, List<String[]> items,
      ItemCall<R> call) {
    int n = items.size();
    if (n == 0) {
      return CompletableFuture.completedFuture(List.of());
    }
    int[] slots = new int[n];
    Map<Object, List<Integer>> byRoute = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      slots[i] = seam.slot(items.get(i)[0]);
      byRoute.computeIfAbsent(seam.batchRoute(slots[i]), r -> new ArrayList<>()).add(i);
    }
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    Object[] out = new Object[n];
    for (List<Integer> route : byRoute.values()) {
      for (int from = 0; from < route.size(); from += MAX_ITEMS_PER_CALL) {
        List<Integer> chunk = route.subList(from, Math.min(route.size(), from + MAX_ITEMS_PER_CALL));
        calls.add(node(items, slots, chunk, call, out));
      }
    }
    return CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
      List<R> answers = new ArrayList<>(n);
      for (Object o : out) {
        @SuppressWarnings("unchecked")
        R r = (R) o;
        answers.add(r);
      }
      return answers;
    });
  }

  /**
   * One call for {@code chunk} (items of one node): the items in the first item's slot declared,
   * the others extra keys; sent again by slot if the node no longer serves some of them.
   */
  private static <R> CompletableFuture<Void> node(List<String[]> items, int[] slots,
      List<Integer> chunk, ItemCall<R> call, Object[] out) {
    int slot = slots[chunk.get(0)];
    List<Integer> order = new ArrayList<>(chunk.size());
    List<Integer> extra = new ArrayList<>();
    for (int i : chunk) {
      (slots[i] == slot ? order : extra).add(i);
    }
    if (extra.isEmpty()) {
      return one(items, order, List.of(), call, out);
    }
    return one(items, order, extra, call, out).exceptionallyCompose(error -> {
      if (!RedisFailures.isNonLocalKey(RedisFailures.unwrap(error))) {
        return CompletableFuture.failedFuture(error);
      }
      Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>(); // nothing was written
      for (int i : chunk) {
        bySlot.computeIfAbsent(slots[i], s -> new ArrayList<>()).add(i);
      }
      List<CompletableFuture<Void>> again = new ArrayList<>();
      for (List<Integer> same : bySlot.values()) {
        again.add(one(items, same, List.of(), call, out));
      }
      return CompletableFuture.allOf(again.toArray(new CompletableFuture<?>[0]));
    });
  }

  /** One call: {@code declared} items' keys in KEYS, {@code extra} items' after the spec. */
  private static <R> CompletableFuture<Void> one(List<String[]> items, List<Integer> declared,
      List<Integer> extra, ItemCall<R> call, Object[] out) {
    String[] keys = flatten(items, declared);
    String[] extraKeys = flatten(items, extra);
    int[] order = new int[declared.size() + extra.size()];
    int next = 0;
    for (int i : declared) {
      order[next++] = i;
    }
    for (int i : extra) {
      order[next++] = i;
    }
    return call.send(keys, extraKeys, order).thenAccept(answers -> {
      int at = 0;
      for (int i : declared) {
        out[i] = answers.get(at++);
      }
      for (int i : extra) {
        out[i] = answers.get(at++);
      }
    });
  }

  private static String[] flatten(List<String[]> items, List<Integer> which) {
    if (which.isEmpty()) {
      return new String[0];
    }
    int size = items.get(which.get(0)).length;
    String[] keys = new String[which.size() * size];
    int at = 0;
    for (int i : which) {
      System.arraycopy(items.get(i), 0, keys, at, size);
      at += size;
    }
    return keys;
  }

  /** {@code base} followed by {@code extraKeys}: a batch function's ARGV. */
  static String[] withExtra(String[] base, String[] extraKeys) {
    if (extraKeys.length == 0) {
      return base;
    }
    String[] args = Arrays.copyOf(base, base.length + extraKeys.length);
    System.arraycopy(extraKeys, 0, args, base.length, extraKeys.length);
    return args;
  }
}
