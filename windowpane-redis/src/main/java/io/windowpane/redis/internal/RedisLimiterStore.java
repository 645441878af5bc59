package io.windowpane.redis.internal;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.TopKey;
import io.windowpane.WindowSpec;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.ReplayBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A rate limiter in Redis: every decision, over every limit of the quota, is one call of
 * {@code wp_take}, which checks all limits and records in all of them or in none. It answers an
 * allowed decision with a bare integer (the remaining room) and a denied one with the array of
 * {@code wp_acquire} (an array reply costs the server about half a microsecond more per call). A replay is one call of {@code wp_replay}, which records in every
 * limit and decides nothing; many replays are one call of {@code wp_replay_all} per node
 * ({@link Replays#callAll}). {@link #peek} is one call of {@code wp_peek}, which
 * writes nothing. With top keys on, every decision also feeds the allowed or the denied
 * sketch of the first limit's window ({@link TopSketch}: a call of its own, not awaited).
 * {@link #tryAcquireAll} is one call of {@code wp_take_all} per node ({@link Batch}).
 *
 * <p>Leasing: {@link #lease} is one call of {@code wp_lease}, which grants
 * the largest count in [min, max] that fits every limit and records it as an acquire of it at
 * the engine's time (the server's by default), answered with the grant and that time; a grant
 * feeds the top keys like an acquire of it.
 * {@link #releaseAsync} is one call of {@code wp_release}, idempotent per release id like a
 * replay ({@link Replays}).
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
  /** The sketches of permits allowed and requests denied; null when top keys are off. */
  private final TopSketch allowedTop;
  private final TopSketch deniedTop;
  /** Merges concurrent decisions bound for one node into wp_take_all calls; null when off. */
  private final Coalescer<Decision> coalescer;

  RedisLimiterStore(RedisSeam seam, TimeArg time, long guardMillis, String name, Quota quota,
      boolean coalescing) {
    this.coalescer = coalescing ? new Coalescer<>() : null;
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
      suffixes[i] = Layout.limitSuffix(name, i, spec);
      keys += Layout.keyCount(spec);
      Layout.specArgs(acquireArgs, 3 + 4 * i, spec);
      acquireArgs[6 + 4 * i] = Long.toString(limits[i].permits());
      Layout.specArgs(holdsArgs, 2 + 3 * i, spec);
    }
    this.keyCount = keys;
    if (quota.topKeys() > 0) {
      String tag = "r:" + name;
      this.allowedTop = new TopSketch(seam, guardMillis, tag, "a", limits[0].window(),
          quota.topKeys());
      this.deniedTop = new TopSketch(seam, guardMillis, tag, "d", limits[0].window(),
          quota.topKeys());
    } else {
      this.allowedTop = null;
      this.deniedTop = null;
    }
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

  /** wp_take's and wp_peek's ARGV: the time now and {@code permits}, then the quota. */
  private String[] argsFor(long permits) {
    String[] args = acquireArgs.clone();
    args[0] = time.now();
    args[1] = Long.toString(permits);
    return args;
  }

  private CompletableFuture<Object> acquireCall(String key, long permits) {
    String[] args = argsFor(permits);
    CompletableFuture<Object> call = seam.callIntegerOrIntegers("wp_take", keys(key), args);
    if (allowedTop == null) {
      return call;
    }
    // top keys on: feed a sketch once the decision is known (a call of its own, not awaited)
    return call.thenApply(reply -> {
      if (unwrap(reply) instanceof Long) {
        allowedTop.add(args[0], key, permits);
      } else {
        deniedTop.add(args[0], key, 1);
      }
      return reply;
    });
  }

  @Override
  public Optional<Decision> peek(String key, long permits) {
    List<Long> r = Calls.await(seam.callIntegers("wp_peek", keys(key), argsFor(permits)),
        guardMillis, "peek");
    return Optional.of(r.get(0) == 1 ? Decision.allowed(r.get(1)) : denied(r));
  }

  @Override
  public CompletionStage<Optional<Decision>> peekAsync(String key, long permits) {
    return Calls.translated(seam.callIntegers("wp_peek", keys(key), argsFor(permits))
        .thenApply(r -> Optional.of(r.get(0) == 1 ? Decision.allowed(r.get(1)) : denied(r))),
        "peek");
  }

  @Override
  public Optional<List<TopKey>> topKeys(int n, boolean denied) {
    if (allowedTop == null) {
      return Optional.empty();
    }
    return (denied ? deniedTop : allowedTop).top(time.now(), n);
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
    return denied((List<?>) r);
  }

  /** A denial from {0, remaining, denying limit (1-based), retry after}. */
  private Decision denied(List<?> reply) {
    return Decision.denied((Long) reply.get(1), limits[(int) (long) (Long) reply.get(2) - 1],
        (Long) reply.get(3));
  }

  /**
   * One decision: wp_take at once, or, with coalescing on and other decisions of this store
   * with the same permits on the wire to the key's node, an item of the next wp_take_all.
   */
  private CompletableFuture<Decision> decide(String key, long permits) {
    if (coalescer == null) {
      return acquireCall(key, permits).thenApply(this::decision);
    }
    Object route = seam.batchRoute(seam.slot(prefix + key + suffixes[0]));
    return coalescer.submit(new Coalescer.LaneKey(route, permits), key,
        () -> acquireCall(key, permits).thenApply(this::decision),
        keys -> tryAcquireAllCall(keys, permits));
  }

  @Override
  public Decision tryAcquire(String key, long permits) {
    return Calls.await(decide(key, permits), guardMillis, "tryAcquire");
  }

  @Override
  public boolean tryConsume(String key, long permits) {
    return Calls.await(decide(key, permits), guardMillis, "tryConsume").allowed();
  }

  @Override
  public boolean holdsState(String key) {
    return Calls.holds(seam, time, guardMillis, keys(key), holdsArgs);
  }

  @Override
  public List<Decision> tryAcquireAll(List<String> keys, long permits) {
    return NewKeys.whole(Calls.await(tryAcquireAllCall(keys, permits), guardMillis,
        "tryAcquireAll"), keys, "tryAcquireAll");
  }

  /**
   * wp_take_all: one call per node ({@link Batch}), every key at the same time; the reply holds
   * three integers per key: remaining, the denying limit (1-based, 0 when allowed), retry after.
   */
  private CompletableFuture<List<Decision>> tryAcquireAllCall(List<String> keys, long permits) {
    String[] args = argsFor(permits);
    List<String[]> items = new ArrayList<>(keys.size());
    for (String key : keys) {
      items.add(keys(key));
    }
    CompletableFuture<List<Decision>> call = Batch.run(seam, items,
        (k, extra) -> seam.callIntegers("wp_take_all", k, Batch.withExtra(args, extra))
            .thenApply(reply -> {
              List<Decision> out = new ArrayList<>(reply.size() / 3);
              int refused = 0;
              for (int i = 0; i + 2 < reply.size(); i += 3) {
                long by = reply.get(i + 1);
                if (by == 0 && reply.get(i) == NewKeys.REFUSED) { // the memory guard's refusal
                  out.add(null);
                  refused++;
                  continue;
                }
                out.add(by == 0 ? Decision.allowed(reply.get(i))
                    : Decision.denied(reply.get(i), limits[(int) by - 1], reply.get(i + 2)));
              }
              if (refused > 0) {
                seam.refusedCreations(refused);
              }
              return out;
            }));
    if (allowedTop == null) {
      return call;
    }
    return call.thenApply(decisions -> { // top keys on: feed per key, as a decision does
      for (int i = 0; i < decisions.size(); i++) {
        if (decisions.get(i) != null) {
          fedTop(args[0], keys.get(i), decisions.get(i).allowed() ? permits : 0);
        }
      }
      return decisions;
    });
  }

  /**
   * Feeds the top keys as a decision on {@code key} at {@code timeArg} does: {@code allowed}
   * permits to the allowed sketch, or (0) one denial to the denied sketch. Nothing with top keys
   * off.
   */
  void fedTop(String timeArg, String key, long allowed) {
    if (allowedTop == null) {
      return;
    }
    if (allowed > 0) {
      allowedTop.add(timeArg, key, allowed);
    } else {
      deniedTop.add(timeArg, key, 1);
    }
  }

  /** Whether this store calls through {@code other}: a store of the same engine. */
  boolean callsThrough(RedisSeam other) {
    return seam == other;
  }

  /** The keys of {@code key}: every limit's, in quota order (wp_acquire's KEYS). */
  String[] keysOf(String key) {
    return keys(key);
  }

  /**
   * A member's ARGV in wp_group: {@code permits}, the number of limits, then per limit its
   * algorithm, W, P and limit.
   */
  void groupArgs(List<String> out, long permits) {
    out.add(Long.toString(permits));
    for (int i = 2; i < acquireArgs.length; i++) {
      out.add(acquireArgs[i]);
    }
  }

  /** The limit at {@code position} (1-based) in the quota. */
  Limit limit(int position) {
    return limits[position - 1];
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
    return Calls.translated(decide(key, permits), "tryAcquire");
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<String> keys, long permits) {
    return Calls.translated(tryAcquireAllCall(keys, permits)
        .thenApply(d -> NewKeys.whole(d, keys, "tryAcquireAll")), "tryAcquireAll");
  }

  /** wp_replay's and wp_release's ARGV after the id: n, the limits, then their specs. */
  private String[] markedArgs(long permits) {
    String[] rest = new String[holdsArgs.length];
    System.arraycopy(holdsArgs, 1, rest, 1, holdsArgs.length - 1); // limits, then their specs
    rest[0] = Long.toString(permits);
    return rest;
  }

  @Override
  public CompletionStage<Void> replayAsync(String key, long permits, long atMillis,
      String replayId) {
    return Replays.call(seam, "wp_replay", time, keys(key), atMillis, replayId,
        markedArgs(permits));
  }

  /** wp_replay_all: one call per node ({@link Replays#callAll}), every limit of each batch. */
  @Override
  public CompletionStage<Void> replayAllAsync(List<ReplayBatch> batches) {
    return Replays.callAll(seam, time, batches, this::keys,
        Arrays.copyOfRange(holdsArgs, 1, holdsArgs.length));
  }

  /**
   * wp_lease: the ARGV of wp_take with {@code minPermits} in the permits' place, then
   * {@code maxPermits}; the reply {granted, time, remaining, denying limit or 0, retry after}.
   */
  private CompletableFuture<Optional<Grant>> leaseCall(String key, long minPermits,
      long maxPermits) {
    String[] args = Arrays.copyOf(acquireArgs, acquireArgs.length + 1);
    args[0] = time.now();
    args[1] = Long.toString(minPermits);
    args[acquireArgs.length] = Long.toString(maxPermits);
    return seam.callIntegers("wp_lease", keys(key), args).thenApply(r -> {
      long granted = r.get(0);
      if (allowedTop != null) { // a grant is an acquire of its permits; a refusal a denial
        if (granted > 0) {
          allowedTop.add(args[0], key, granted);
        } else {
          deniedTop.add(args[0], key, 1);
        }
      }
      Decision decision = granted > 0 ? Decision.allowed(r.get(2))
          : Decision.denied(r.get(2), limits[(int) (long) r.get(3) - 1], r.get(4));
      return Optional.of(new Grant(granted, r.get(1), decision));
    });
  }

  @Override
  public Optional<Grant> lease(String key, long minPermits, long maxPermits) {
    return Calls.await(leaseCall(key, minPermits, maxPermits), guardMillis, "lease");
  }

  @Override
  public CompletionStage<Optional<Grant>> leaseAsync(String key, long minPermits,
      long maxPermits) {
    return Calls.translated(leaseCall(key, minPermits, maxPermits), "lease");
  }

  @Override
  public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
      String releaseId) {
    return Replays.release(seam, time, keys(key), atMillis, releaseId, markedArgs(permits));
  }
}
