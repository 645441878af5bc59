package io.windowpane.redis.internal;

import io.windowpane.Algorithm;
import io.windowpane.TopKey;
import io.windowpane.WindowSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/*
 * Design note. The top-keys sketch of one window (docs/redis-protocol.md "Top keys"): one sorted set and one hash per window, under the hash tag {kind:name}, which is not
 * the tag of any counted key ({name:key}). In Redis Cluster the sketch therefore sits on a slot
 * of its own, usually on another node, and no function can both decide and feed it. So each
 * event is fed by a call of its own, wp_topadd, sent right after the decision's call and never
 * awaited (fire and forget, pipelined on the client's connection): the decision's latency does
 * not include it, a failed feed loses that event from the ranking (the sketch is approximate
 * anyway) and never fails the decision. Its time argument is the decision's own, so with client
 * time both land in the same pane. A ranking (wp_top) first waits, briefly, for the last feed
 * this client sent to that sketch, so it sees every event this client fed before it asked.
 * The sketch's panes are the local engine's: a panes window's own, W / 10 (or W) otherwise.
 */
/** One window's top-keys sketch in Redis: fed per event, ranked by {@code wp_top}. */
final class TopSketch {

  private static final CompletableFuture<Object> DONE = CompletableFuture.completedFuture(null);

  private final RedisSeam seam;
  private final long guardMillis;
  private final String[] keys;
  private final String windowMillis;
  private final String panes;
  private final String counters;
  private volatile CompletableFuture<?> last = DONE;

  /**
   * @param tag the sketch's hash tag content, {@code kind:name} (never a counted key's tag)
   * @param part what the sketch counts within the window ("a", "d" for a limiter, "" else)
   */
  TopSketch(RedisSeam seam, long guardMillis, String tag, String part, WindowSpec window,
      int k) {
    this.seam = seam;
    this.guardMillis = guardMillis;
    long w = window.windowMillis();
    int p = window.algorithm() == Algorithm.SLIDING_PANES ? window.panes()
        : w % 10 == 0 ? 10 : 1;
    this.windowMillis = Long.toString(w);
    this.panes = Integer.toString(p);
    this.counters = Integer.toString(k);
    String base = "wp1:t:{" + tag + "}:" + part + "p" + w + "/" + p + "/k" + k;
    this.keys = new String[] {base, base + ":h"};
  }

  /** The sketch's two keys, sorted set then hash. */
  String[] keys() {
    return keys.clone();
  }

  /** Feeds {@code n} events of {@code key} at {@code timeArg}; never waits, never fails. */
  void add(String timeArg, String key, long n) {
    last = seam.callInteger("wp_topadd", keys,
        new String[] {timeArg, windowMillis, panes, counters, Long.toString(n), key});
  }

  /** The {@code n} heaviest keys over the window at {@code timeArg}. */
  Optional<List<TopKey>> top(String timeArg, int n) {
    try {
      last.handle((v, e) -> null).get(guardMillis, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      // rank what is there: a feed still in flight is the price of not waiting for feeds
    }
    List<Object> reply = Calls.await(seam.callList("wp_top", keys,
        new String[] {timeArg, windowMillis, panes, counters, Integer.toString(n)}),
        guardMillis, "top");
    List<TopKey> out = new ArrayList<>(reply.size() / 3);
    for (int i = 0; i + 2 < reply.size(); i += 3) {
      out.add(new TopKey(String.valueOf(reply.get(i)), number(reply.get(i + 1)),
          number(reply.get(i + 2))));
    }
    return Optional.of(List.copyOf(out));
  }

  private static long number(Object o) {
    return o instanceof Long l ? l : Long.parseLong(String.valueOf(o));
  }
}
