package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.BufferStats;
import io.windowpane.Buffering;
import io.windowpane.ManualClock;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.Together;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Buffering counters and statistics on two nodes (two {@code Windowpane}s) sharing one real
 * Redis, with one manual clock for the engine's time and the staleness deadlines: threads on
 * both nodes adding to one hot key leave exactly their total on Redis after a flush, and a node
 * sees the other node's events once they were flushed and its own view is older than the
 * staleness bound S (the bound of docs/leasing.md: S/2 to the flush, then S).
 */
@ExtendWith(RedisServerExtension.class)
class RedisBufferingIT {

  private static final long S = 60_000; // the background flusher (real time, S/2) stays idle
  private static final WindowSpec HOUR = WindowSpec.panes(Duration.ofHours(1), 60);
  private static final StatsSpec HOUR_STATS = StatsSpec.exact(Duration.ofHours(1));

  private final RedisServer redis;

  RedisBufferingIT(RedisServer redis) {
    this.redis = redis;
  }

  @Test
  void hotKey_twoNodesWithThreads_exactTotalOnRedisAfterFlush() throws Exception {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    Buffering buffering = Buffering.of(Duration.ofMillis(S)).clock(clock);
    int threads = 8;
    int adds = 20_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (Windowpane a = TestEngines.standalone(redis, clock, ScriptMode.AUTO);
        Windowpane b = TestEngines.standalone(redis, clock, ScriptMode.AUTO);
        Windowpane reader = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      WindowCounter[] nodes = {a.counter("buf", HOUR.withBuffering(buffering)),
          b.counter("buf", HOUR.withBuffering(buffering))};
      AtomicInteger ids = new AtomicInteger();
      long total = Together.sum(pool, threads, Duration.ofMinutes(2), () -> {
        int id = ids.getAndIncrement();
        WindowCounter c = nodes[id % 2];
        long mine = 0;
        for (int i = 0; i < adds; i++) {
          switch (i % 3) {
            case 0 -> c.add("hot");
            case 1 -> c.record("hot", 2);
            default -> c.addAsync("hot", 1).toCompletableFuture().join();
          }
          mine += i % 3 == 1 ? 2 : 1;
          if (id == 0 && i % 2_000 == 0) {
            clock.advance(S + 1); // every view goes stale: synchronous adds race
          }
          if (id == 1 && i % 1_000 == 0) {
            c.flush();
          }
        }
        return mine;
      });
      nodes[0].flush();
      nodes[1].flush();
      assertThat(reader.counter("buf", HOUR).count("hot")).isEqualTo(total);
      for (WindowCounter c : nodes) {
        BufferStats stats = c.bufferStats().orElseThrow();
        assertThat(stats.lostEvents()).isZero();
        assertThat(stats.localAnswerRatio()).as("%s", stats).isGreaterThan(0.9);
      }
      assertThat(nodes[0].bufferStats().get().flushedEvents()
          + nodes[1].bufferStats().get().flushedEvents()).isEqualTo(total);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void nodeB_seesNodeAsEvents_whenFlushedAndItsViewIsOlderThanS() {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    Buffering buffering = Buffering.of(Duration.ofMillis(S)).clock(clock);
    try (Windowpane a = TestEngines.standalone(redis, clock, ScriptMode.AUTO);
        Windowpane b = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      WindowCounter ca = a.counter("seen", HOUR.withBuffering(buffering));
      WindowCounter cb = b.counter("seen", HOUR.withBuffering(buffering));
      assertThat(ca.add("k")).isEqualTo(1); // no view yet: synchronous
      for (int i = 2; i <= 10; i++) {
        assertThat(ca.add("k")).isEqualTo(i); // A always counts its own events
      }
      assertThat(cb.count("k")).isEqualTo(1); // B's first read: A's 9 are still on A
      ca.flush(); // what A's flusher does within S/2
      clock.advance(S);
      assertThat(cb.count("k")).isEqualTo(1); // B's view is S old: still fresh
      clock.advance(1);
      assertThat(cb.count("k")).isEqualTo(10); // older than S: read again
      assertThat(cb.add("k", 5)).isEqualTo(15);
      assertThat(ca.count("k")).isEqualTo(10); // A's view is S + 1 old: read; B's 5 on B
      cb.flush(); // what B's flusher does within S/2
      assertThat(ca.add("k")).isEqualTo(11); // A's view is fresh: B's 5 not seen yet
      clock.advance(S + 1);
      assertThat(ca.add("k")).isEqualTo(17); // stale: A's 2 go with the call that reads B's 5

      WindowStats sa = a.stats("lat", HOUR_STATS.withBuffering(buffering));
      WindowStats sb = b.stats("lat", HOUR_STATS.withBuffering(buffering));
      sa.record("k", 1.0);
      sa.recordAll("k", 2.0, 3.0);
      assertThat(sb.summary("k").count()).isZero(); // still on A
      assertThat(sa.summary("k").count()).isEqualTo(3); // read-your-writes on A
      sb.record("k", 4.0);
      assertThat(sb.summary("k").sum()).isEqualTo(10.0);
    }
  }
}
