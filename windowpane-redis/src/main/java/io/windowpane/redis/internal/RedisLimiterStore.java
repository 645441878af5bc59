package io.windowpane.redis.internal;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import io.windowpane.spi.LimiterStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A rate limiter in Redis: every decision, over every limit of the quota, is one call of
 * {@code wp_take}, which checks all limits and records in all of them or in none. It answers an
 * allowed decision with a bare integer (the remaining room) and a denied one with the array of
 * {@code wp_acquire} (library version 6: the array reply cost the server about half a
 * microsecond per call). A replay is one call of {@code wp_replay}, which records in every
 * limit and decides nothing.
 */
final class RedisLimiterStore implements LimiterStore {

  private final RedisSeam seam;
  private final TimeArg time;
  private final long guardMillis;
  private final String prefix;
  private final Limit[] limits;
  private final String[] suffixes;
  private final int keyCount;
  /** ARGV with slots 0 (time) and 1 (permits) left to fill; cloned per call. */
  private final String[] acquireArgs;
  private final String[] holdsArgs;

  RedisLimiterStore(RedisSeam seam, TimeArg time, long guardMillis, String name, Quota quota) {
    this.seam = seam;
    this.time = time;
    this.guardMillis = guardMillis;
    this.prefix = Layout.prefix('r', name);
    this.limits = quota.limits().toArray(new Limit[0]);
    this.suffixes = new String[limits.length];
    this.acquireArgs = new String[3 + 4 * limits.length];
    this.holdsArgs = new String[2 + 3 * limits.length];
    acquireArgs[2] = Integer.toString(limits.length);
    holdsArgs[1] = acquireArgs[2];
    int keys = 0;
    for (int i = 0; i < limits.length; i++) {
      WindowSpec spec = limits[i].window();
      suffixes[i] = Layout.limitSuffix(i, spec);
      keys += Layout.keyCount(spec);
      Layout.specArgs(acquireArgs, 3 + 4 * i, spec);
      acquireArgs[6 + 4 * i] = Long.toString(limits[i].permits());
      Layout.specArgs(holdsArgs, 2 + 3 * i, spec);
    }
    this.keyCount = keys;
  }

  private String[] keys(String key) {
    String[] out = new String[keyCount];
    String tagged = prefix + key;
    int at = 0;
    for (int i = 0; i < limits.length; i++) {
      at = Layout.keys(out, at, tagged, suffixes[i], limits[i].window());
    }
    return out;
  }

  private CompletableFuture<Object> acquireCall(String key, long permits) {
    String[] args = acquireArgs.clone();
    args[0] = time.now();
    args[1] = Long.toString(permits);
    return seam.callIntegerOrIntegers("wp_take", keys(key), args);
  }

  /**
   * wp_take's reply: the remaining room when allowed, else {0, remaining, by, retryAfter}.
   * Lettuce's OBJECT output hands an integer reply over as a one-element list.
   */
  private static Object unwrap(Object reply) {
    return reply instanceof List<?> one && one.size() == 1 ? one.get(0) : reply;
  }

  private Decision decision(Object reply) {
    Object r = unwrap(reply);
    if (r instanceof Long remaining) {
      return Decision.allowed(remaining);
    }
    List<?> denied = (List<?>) r;
    return Decision.denied((Long) denied.get(1), limits[(int) (long) (Long) denied.get(2) - 1],
        (Long) denied.get(3));
  }

  @Override
  public Decision tryAcquire(String key, long permits) {
    return decision(Calls.await(acquireCall(key, permits), guardMillis, "tryAcquire"));
  }

  @Override
  public boolean tryConsume(String key, long permits) {
    // an allowed decision is a bare integer; a denied one an array (whose first element is 0)
    return unwrap(Calls.await(acquireCall(key, permits), guardMillis, "tryConsume"))
        instanceof Long;
  }

  @Override
  public boolean holdsState(String key) {
    return Calls.holds(seam, time, guardMillis, keys(key), holdsArgs);
  }

  @Override
  public List<Decision> tryAcquireAll(List<String> keys, long permits) {
    return Calls.await(tryAcquireAllCall(keys, permits), guardMillis, "tryAcquireAll");
  }

  private CompletableFuture<List<Decision>> tryAcquireAllCall(List<String> keys, long permits) {
    return Calls.each(keys, k -> acquireCall(k, permits).thenApply(this::decision));
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
    return Calls.translated(acquireCall(key, permits).thenApply(this::decision), "tryAcquire");
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<String> keys, long permits) {
    return Calls.translated(tryAcquireAllCall(keys, permits), "tryAcquireAll");
  }

  @Override
  public CompletionStage<Void> replayAsync(String key, long permits, long atMillis,
      String replayId) {
    String[] rest = new String[holdsArgs.length];
    System.arraycopy(holdsArgs, 1, rest, 1, holdsArgs.length - 1); // limits, then their specs
    rest[0] = Long.toString(permits);
    return Replays.call(seam, "wp_replay", time, keys(key), atMillis, replayId, rest);
  }
}
