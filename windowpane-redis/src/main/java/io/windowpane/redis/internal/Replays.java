package io.windowpane.redis.internal;

import io.windowpane.spi.ReplayBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.regex.Pattern;

/*
 * Design note. A failover chain replays into Redis the events its fallback took while Redis was
 * down (Engine.replays(), docs/redis-protocol.md "Replay"). Each replay is one call of
 * wp_replay (counters and limiters: every window of the quota), wp_replay_record (histogram) or
 * wp_replay_xrecord (exact), which records the events at min(at, now) in the pane, fixed window or
 * log position of that time and decides nothing. Idempotency lives on the server, in the same
 * atomic call: KEYS[1] is a marker named after the first window key and the replay id, under
 * the same hash tag, checked and set with the window's reach as its expiry. A repeated replay
 * (the chain did not hear whether the first landed) changes nothing. A limiter's release of
 * leased permits (wp_release) is idempotent the same way, with its marker
 * under ":g:" instead of ":y:", so a release id never collides with a replay id.
 *
 * Many replays of one store (replayAllAsync: the chain sends up to 64 journal batches at once)
 * go out as wp_replay_all (statistics: wp_replay_record_all, wp_replay_xrecord_all), through
 * Batch: one call per node on a Cluster (per slot through EVALSHA), one on a single server.
 * Each item is the single replay on its own marker and keys, with its own at, id and n (or
 * values), so the call is atomic and idempotent per item, as the SPI asks; a call that fails
 * fails the stage, and the chain sends its batches again one by one (the markers make that
 * harmless for the items that had landed).
 */

/** What replays and releases share: the id's check, the marker key, the call. */
final class Replays {

  /** The replay ids the SPI allows; they become part of a key name. */
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

  /** Lua numbers are doubles: the functions take times within +-2^52 ms. */
  private static final long MAX_TIME = 1L << 52;

  private Replays() {}

  /**
   * Calls {@code function} with KEYS = the marker, then {@code windowKeys}, and ARGV = the time,
   * {@code atMillis} (clamped into +-2^52: far past is dropped, far future taken as now anyway),
   * {@code replayId}, then {@code rest}. A malformed id fails the stage with
   * {@link IllegalArgumentException} before any I/O.
   */
  static CompletionStage<Void> call(RedisSeam seam, String function, TimeArg time,
      String[] windowKeys, long atMillis, String replayId, String... rest) {
    return marked(seam, function, ":y:", "replayId", time, windowKeys, atMillis, replayId, rest);
  }

  /**
   * {@code wp_release} of a limiter's leased permits: {@link #call} with the marker
   * {@code <first window key>:g:<releaseId>}; the same rules for the id.
   */
  static CompletionStage<Void> release(RedisSeam seam, TimeArg time, String[] windowKeys,
      long atMillis, String releaseId, String... rest) {
    return marked(seam, "wp_release", ":g:", "releaseId", time, windowKeys, atMillis, releaseId,
        rest);
  }

  private static CompletionStage<Void> marked(RedisSeam seam, String function, String infix,
      String what, TimeArg time, String[] windowKeys, long atMillis, String id, String[] rest) {
    CompletableFuture<Void> refused = refuseId(id, what);
    if (refused != null) {
      return refused;
    }
    String[] keys = new String[windowKeys.length + 1];
    keys[0] = windowKeys[0] + infix + id;
    System.arraycopy(windowKeys, 0, keys, 1, windowKeys.length);
    String[] args = new String[3 + rest.length];
    args[0] = time.now();
    args[1] = Long.toString(Math.max(-MAX_TIME, Math.min(MAX_TIME, atMillis)));
    args[2] = id;
    System.arraycopy(rest, 0, args, 3, rest.length);
    return Calls.translated(seam.callInteger(function, keys, args).thenApply(n -> (Void) null),
        "replayId".equals(what) ? "replay" : "release");
  }

  /**
   * {@code wp_replay_all} over {@code batches} of a counter or limiter: {@link #callAll} with
   * each item's at, id and count; {@code spec} is wp_replay's ARGV after n (the number of
   * windows, then per window its algorithm, W and P).
   */
  static CompletionStage<Void> callAll(RedisSeam seam, TimeArg time, List<ReplayBatch> batches,
      Function<String, String[]> keysOf, String[] spec) {
    return callAll(seam, "wp_replay_all", time, batches, keysOf, spec,
        (b, args) -> args.add(Long.toString(b.count())));
  }

  /**
   * {@code function} (wp_replay_all, wp_replay_record_all, wp_replay_xrecord_all) over
   * {@code batches}, in as few calls as {@link Batch} allows: ARGV = the time, {@code spec},
   * the number of items, per item its at, id and what {@code itemArgs} adds, then the extra
   * keys; {@code keysOf} gives a batch key's window keys. A malformed id in any batch fails the
   * stage with {@link IllegalArgumentException} before any I/O.
   */
  static CompletionStage<Void> callAll(RedisSeam seam, String function, TimeArg time,
      List<ReplayBatch> batches, Function<String, String[]> keysOf, String[] spec,
      BiConsumer<ReplayBatch, List<String>> itemArgs) {
    List<String[]> items = new ArrayList<>(batches.size());
    for (ReplayBatch b : batches) {
      CompletableFuture<Void> refused = refuseId(b.replayId());
      if (refused != null) {
        return refused;
      }
      String[] windowKeys = keysOf.apply(b.key());
      String[] keys = new String[windowKeys.length + 1];
      keys[0] = windowKeys[0] + ":y:" + b.replayId();
      System.arraycopy(windowKeys, 0, keys, 1, windowKeys.length);
      items.add(keys);
    }
    return Calls.translated(Batch.runItems(seam, items, (keys, extraKeys, order) -> {
      List<String> args = new ArrayList<>(2 + spec.length + 4 * order.length + extraKeys.length);
      args.add(time.now());
      args.addAll(List.of(spec));
      args.add(Integer.toString(order.length));
      for (int i : order) {
        ReplayBatch b = batches.get(i);
        args.add(Long.toString(Math.max(-MAX_TIME, Math.min(MAX_TIME, b.atMillis()))));
        args.add(b.replayId());
        itemArgs.accept(b, args);
      }
      args.addAll(List.of(extraKeys));
      return seam.callIntegers(function, keys, args.toArray(new String[0]));
    }).thenApply(replies -> (Void) null), "replay");
  }

  /** A stage failed with {@link IllegalArgumentException} if {@code replayId} is malformed. */
  static <T> CompletableFuture<T> refuseId(String replayId) {
    return refuseId(replayId, "replayId");
  }

  /** The same check for an id named {@code what} ("replayId", "releaseId"). */
  static <T> CompletableFuture<T> refuseId(String id, String what) {
    if (id != null && ID.matcher(id).matches()) {
      return null;
    }
    return CompletableFuture.failedFuture(new IllegalArgumentException(
        what + " must be 1 to 64 characters of [A-Za-z0-9_.:-], was " + id));
  }
}
