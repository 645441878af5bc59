package io.windowpane.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/*
 * Design note. Coalescing of concurrent single calls ("smart batching", no timer). Calls of one
 * store that go to one node with the same count (permits of a tryAcquire, n of an add) share a
 * lane. A lane has at most one call on the wire:
 *
 *   - a call that finds its lane idle goes out at once, alone, as the single function it is
 *     (wp_take, wp_add): a lone caller never waits for anyone, and pays nothing more than a
 *     compare-and-set;
 *   - a call that finds its lane busy joins the lane's queue; when the call on the wire is
 *     answered, everything queued meanwhile goes out as ONE call of the batch function
 *     (wp_take_all, wp_add_all; at most Batch.MAX_ITEMS_PER_CALL items, the rest in the next).
 *
 * So under load each round trip carries every call that arrived during the previous one, and the
 * server runs one function call for them instead of one each; when calls are sparse nothing
 * changes. Each caller gets its own item's answer, which is exactly what its single call would
 * have answered at the batch's time (a batch decides its items in order, each as its single
 * function would). A batch that fails fails each of its callers with the batch's failure, and is
 * not repeated (Batch): nothing is recorded twice. An item answered null (a new key the memory
 * guard refused) fails its caller alone, as its single call would have.
 *
 * Invariant: a lane is busy while a call of it is on the wire or being sent. The only race is a
 * caller that queues while the lane goes idle: it then claims the lane itself (kick), so no
 * queued call is left behind.
 */

/** Merges concurrent single calls bound for one node into batch calls. */
final class Coalescer<R> {

  /** One queued call. */
  private record Pending<R>(String key, CompletableFuture<R> answer) {}

  /** The calls bound for one node with one count. */
  private final class Lane {
    final Queue<Pending<R>> queue = new ConcurrentLinkedQueue<>();
    final AtomicBoolean busy = new AtomicBoolean();
    final Function<List<String>, CompletableFuture<List<R>>> batch;

    Lane(Function<List<String>, CompletableFuture<List<R>>> batch) {
      this.batch = batch;
    }

    /**
     * Sends what is queued, if anything, as one batch call; else leaves the lane idle. A call
     * that fails at once (connection down) is finished here and the loop goes on, rather than
     * recursing through its completion.
     */
    void sendQueued() {
      while (true) {
        List<Pending<R>> items = new ArrayList<>();
        Pending<R> p;
        while (items.size() < Batch.MAX_ITEMS_PER_CALL && (p = queue.poll()) != null) {
          items.add(p);
        }
        if (!items.isEmpty()) {
          CompletableFuture<List<R>> call = start(items);
          if (!call.isDone()) {
            call.whenComplete((answers, failure) -> {
              finish(items, answers, failure);
              sendQueued();
            });
            return;
          }
          List<R> answers = null;
          Throwable failure = null;
          try {
            answers = call.join();
          } catch (RuntimeException e) {
            failure = RedisFailures.unwrap(e);
          }
          finish(items, answers, failure);
          continue;
        }
        busy.set(false);
        if (queue.isEmpty() || !busy.compareAndSet(false, true)) {
          return; // idle; or another caller claimed the lane and sends
        }
      }
    }

    private CompletableFuture<List<R>> start(List<Pending<R>> items) {
      List<String> keys = new ArrayList<>(items.size());
      for (Pending<R> item : items) {
        keys.add(item.key());
      }
      try {
        return batch.apply(keys);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    private void finish(List<Pending<R>> items, List<R> answers, Throwable failure) {
      for (int i = 0; i < items.size(); i++) {
        if (failure != null) {
          items.get(i).answer().completeExceptionally(failure);
        } else if (answers.get(i) == null) { // a new key the memory guard refused
          items.get(i).answer().completeExceptionally(
              NewKeys.refused("call", items.get(i).key()));
        } else {
          items.get(i).answer().complete(answers.get(i));
        }
      }
    }

    void kick() {
      if (busy.compareAndSet(false, true)) {
        sendQueued();
      }
    }
  }

  /** A lane: the node's batch route and the calls' count (permits, n). */
  record LaneKey(Object route, long count) {}

  /** Lanes kept at most; calls beyond (many distinct counts) go out alone, as without lanes. */
  private static final int MAX_LANES = 1_024;

  private final ConcurrentHashMap<Object, Lane> lanes = new ConcurrentHashMap<>();

  /**
   * The answer for {@code key}: {@code single} at once if the lane {@code lane} is idle, else
   * the key's item of a later call of {@code batch} (its keys in order, answers in order).
   */
  CompletableFuture<R> submit(Object lane, String key,
      java.util.function.Supplier<CompletableFuture<R>> single,
      Function<List<String>, CompletableFuture<List<R>>> batch) {
    Lane l = lanes.get(lane);
    if (l == null) {
      if (lanes.size() >= MAX_LANES) {
        return single.get();
      }
      l = lanes.computeIfAbsent(lane, k -> new Lane(batch));
    }
    if (l.busy.compareAndSet(false, true)) {
      CompletableFuture<R> call;
      try {
        call = single.get();
      } catch (RuntimeException e) {
        call = CompletableFuture.failedFuture(e);
      }
      Lane owner = l;
      call.whenComplete((v, e) -> owner.sendQueued());
      return call;
    }
    CompletableFuture<R> answer = new CompletableFuture<>();
    l.queue.add(new Pending<>(key, answer));
    l.kick();
    return answer;
  }
}
