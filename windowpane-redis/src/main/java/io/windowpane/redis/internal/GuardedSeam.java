package io.windowpane.redis.internal;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * The seam with the memory guard in front: a call of a writing function bound for a primary at
 * PRESSURE carries the no-new-keys flag (its time argument ends in {@code '!'}), one bound for a
 * primary at WARN the coarsening flag ({@code '~'}; {@code '!'} includes it); a call answered
 * {@code OOM} puts its primary at PRESSURE; refusals are counted. Everything else passes through
 * unchanged. While no primary is at PRESSURE a call costs one volatile read more.
 */
public final class GuardedSeam implements RedisSeam {

  /** The functions that honour the flag (docs/redis-protocol.md, "Memory pressure"). */
  static final Set<String> GUARDED = Set.of("wp_add", "wp_acquire", "wp_take", "wp_lease",
      "wp_record", "wp_xrecord", "wp_group", "wp_add_all", "wp_take_all", "wp_record_all",
      "wp_xrecord_all", "wp_add_at", "wp_record_at", "wp_xrecord_at");

  private final RedisSeam seam;
  private final MemoryGuard guard;

  public GuardedSeam(RedisSeam seam, MemoryGuard guard) {
    this.seam = seam;
    this.guard = guard;
  }

  /** {@code args} with the flag when {@code function} writes to a primary under pressure. */
  private String[] flagged(String function, String[] keys, String[] args) {
    if (!guard.anyWarn() || keys.length == 0 || args.length == 0
        || !GUARDED.contains(function)) {
      return args;
    }
    String flag = guard.flag(seam.nodeOf(keys[0]));
    if (flag == null) {
      return args;
    }
    String[] out = args.clone();
    out[0] = out[0] + flag;
    return out;
  }

  private <T> CompletableFuture<T> watched(CompletableFuture<T> call, String[] keys) {
    call.whenComplete(observer(keys));
    return call;
  }

  private <T> BiConsumer<T, Throwable> observer(String[] keys) {
    return (v, e) -> {
      if (e == null) {
        return;
      }
      String message = String.valueOf(RedisFailures.unwrap(e).getMessage());
      if (message.startsWith("OOM")) {
        guard.outOfMemory(keys.length == 0 ? "" : seam.nodeOf(keys[0]));
      } else if (message.startsWith("WPNOKEY")) {
        guard.refused(1);
      }
    };
  }

  @Override
  public boolean functions() {
    return seam.functions();
  }

  @Override
  public CompletableFuture<Long> callInteger(String function, String[] keys, String[] args) {
    return watched(seam.callInteger(function, keys, flagged(function, keys, args)), keys);
  }

  @Override
  public CompletableFuture<Object> callIntegerOrIntegers(String function, String[] keys,
      String[] args) {
    return watched(seam.callIntegerOrIntegers(function, keys, flagged(function, keys, args)),
        keys);
  }

  @Override
  public CompletableFuture<List<Long>> callIntegers(String function, String[] keys,
      String[] args) {
    return watched(seam.callIntegers(function, keys, flagged(function, keys, args)), keys);
  }

  @Override
  public CompletableFuture<List<Object>> callList(String function, String[] keys,
      String[] args) {
    return watched(seam.callList(function, keys, flagged(function, keys, args)), keys);
  }

  @Override
  public void refusedCreations(int items) {
    guard.refused(items);
  }

  @Override
  public boolean noNewKeys(String key) {
    return guard.noNewKeys(seam.nodeOf(key));
  }

  @Override
  public CompletableFuture<Long> exists(String[] keys) {
    return seam.exists(keys);
  }

  @Override
  public int slot(String key) {
    return seam.slot(key);
  }

  @Override
  public Object batchRoute(int slot) {
    return seam.batchRoute(slot);
  }

  @Override
  public String nodeOf(String key) {
    return seam.nodeOf(key);
  }

  @Override
  public CompletableFuture<List<NodeInfo>> primariesInfo() {
    return seam.primariesInfo();
  }

  @Override
  public CompletableFuture<Long> serverMillis() {
    return seam.serverMillis();
  }

  @Override
  public AutoCloseable every(long periodMillis, Runnable task) {
    return seam.every(periodMillis, task);
  }

  @Override
  public void close() {
    seam.close();
  }
}
