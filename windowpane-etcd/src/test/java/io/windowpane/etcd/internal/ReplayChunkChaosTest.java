package io.windowpane.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import io.windowpane.spi.ReplayBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Chunks of replays ({@code replayAllAsync}) from two engines ("processes") on one
 * {@link ChaosSeam}, seeded, while a fifth of the reads and writes fail: a multi-key write lands
 * and its answer is lost, is lost before landing, or lands later after its caller was told it
 * failed (if its compares still hold). Both processes also add to the same keys through their
 * lanes, so chunk compares fail and keys go to the lanes. Chunks mix new ids with ids of earlier
 * chunks. Once the seam is calm every chunk is sent again until acknowledged, as a failover
 * chain does (by a third process with a longer timeout, which also reads the totals). Then a
 * counter and a limiter that took only replays hold exactly the replayed events (a replay is
 * never applied twice, whatever the lost answers did), and a counter that also took adds holds
 * at least the acknowledged adds plus the replays (an add whose answer was lost may land late).
 */
class ReplayChunkChaosTest {

  private static final WindowSpec MINUTE = WindowSpec.panes(Duration.ofSeconds(60), 60);
  private static final long LIMIT = 1_000_000;
  private static final String[] KEYS = {"a", "b", "c", "d"};

  @Test
  void chunksWithLostAndLateAnswers_andLiveAdds_applyEveryReplayExactlyOnce() throws Exception {
    for (long seed = 1; seed <= 15; seed++) {
      run(seed);
    }
  }

  private void run(long seed) throws Exception {
    Random r = new Random(seed);
    ChaosSeam seam = new ChaosSeam(seed, 0.2);
    ManualClock clock = ManualClock.at(1_700_000_000_000L + r.nextInt(1_000));
    long timeout = r.nextBoolean() ? 60 : 5_000; // 60 ms: chunks also expire mid-retry
    Quota quota = Quota.of(Limit.of(LIMIT, MINUTE), Limit.of(LIMIT, WindowSpec.log(
        Duration.ofSeconds(60))));
    List<Context> ctxs = new ArrayList<>();
    List<EtcdCounterStore> mixed = new ArrayList<>();
    List<EtcdCounterStore> replaysOnly = new ArrayList<>();
    List<EtcdLimiterStore> limiters = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      Context ctx = new Context(seam, clock, "t", timeout, 600_000, 1_000, 1, 2, 1_500_000, 0,
          1 + r.nextInt(4)); // a few keys a transaction: chunks span several
      ctxs.add(ctx);
      mixed.add(new EtcdCounterStore(ctx, "m", MINUTE));
      replaysOnly.add(new EtcdCounterStore(ctx, "r", MINUTE));
      limiters.add(new EtcdLimiterStore(ctx, "l", quota));
    }
    Map<String, AtomicLong> added = new HashMap<>();
    Map<String, Long> replayed = new HashMap<>();
    for (String k : KEYS) {
      added.put(k, new AtomicLong());
      replayed.put(k, 0L);
    }
    List<ReplayBatch> sent = new ArrayList<>();
    List<List<ReplayBatch>> chunks = new ArrayList<>();
    List<CompletableFuture<?>> inFlight = new ArrayList<>();
    try {
      for (int step = 0; step < 1_500; step++) {
        clock.advance(r.nextInt(8));
        int p = r.nextInt(2);
        if (r.nextInt(3) > 0) {
          String key = KEYS[r.nextInt(KEYS.length)];
          long n = 1 + r.nextInt(3);
          inFlight.add(mixed.get(p).addAsync(key, n).toCompletableFuture()
              .thenRun(() -> added.get(key).addAndGet(n)));
        } else {
          List<ReplayBatch> chunk = new ArrayList<>();
          for (int i = 1 + r.nextInt(12); i > 0; i--) {
            if (!sent.isEmpty() && r.nextInt(5) == 0) { // an id of an earlier chunk again
              chunk.add(sent.get(sent.size() - 1 - r.nextInt(Math.min(40, sent.size()))));
              continue;
            }
            ReplayBatch b = new ReplayBatch(KEYS[r.nextInt(KEYS.length)], 1 + r.nextInt(3),
                null, clock.millis() - r.nextInt(30_000), "s" + seed + "-" + sent.size());
            sent.add(b);
            replayed.merge(b.key(), b.count(), Long::sum);
            chunk.add(b);
          }
          chunks.add(chunk);
          inFlight.add(replayAll(mixed.get(p), replaysOnly.get(p), limiters.get(p), chunk));
        }
        if (inFlight.size() >= 100 || r.nextInt(300) == 0) {
          drain(inFlight);
        }
      }
      drain(inFlight);
      seam.settle();
      // a third process with a 5 s timeout resends and checks: a 60 ms one may time out on a
      // loaded machine before its lane runs
      Context checker = new Context(seam, clock, "t", 5_000, 600_000, 1_000, 1, 2, 1_500_000, 0);
      ctxs.add(checker);
      mixed.add(new EtcdCounterStore(checker, "m", MINUTE));
      replaysOnly.add(new EtcdCounterStore(checker, "r", MINUTE));
      limiters.add(new EtcdLimiterStore(checker, "l", quota));
      for (List<ReplayBatch> chunk : chunks) { // as a chain would: sent again until acknowledged
        for (int attempt = 0; ; attempt++) {
          try {
            replayAll(mixed.get(2), replaysOnly.get(2), limiters.get(2), chunk)
                .get(10, TimeUnit.SECONDS);
            break;
          } catch (ExecutionException e) {
            assertThat(attempt).as("seed %d: a chunk keeps failing on a calm seam: %s", seed,
                e).isLessThan(20);
          }
        }
      }
      for (String k : KEYS) {
        String what = "seed " + seed + " key " + k + " (timeout " + timeout + " ms, landed-lost "
            + seam.landedLost + ", lost " + seam.lostBeforeLanding + ", late " + seam.landedLate
            + ")";
        assertThat(replaysOnly.get(2).count(k)).as(what + ": replays only")
            .isEqualTo(replayed.get(k));
        assertThat(LIMIT - 1 - limiters.get(2).tryAcquire(k, 1).remaining())
            .as(what + ": limiter").isEqualTo(replayed.get(k));
        assertThat(mixed.get(2).count(k)).as(what + ": adds and replays")
            .isGreaterThanOrEqualTo(added.get(k).get() + replayed.get(k));
      }
      assertThat(seam.landedLost + seam.lostBeforeLanding + seam.landedLate)
          .as("seed %d: faults", seed).isPositive();
    } finally {
      ctxs.forEach(Context::close);
    }
  }

  private static CompletableFuture<?> replayAll(EtcdCounterStore mixed,
      EtcdCounterStore replaysOnly, EtcdLimiterStore limiter, List<ReplayBatch> chunk) {
    return CompletableFuture.allOf(mixed.replayAllAsync(chunk).toCompletableFuture(),
        replaysOnly.replayAllAsync(chunk).toCompletableFuture(),
        limiter.replayAllAsync(chunk).toCompletableFuture());
  }

  private static void drain(List<CompletableFuture<?>> inFlight) throws Exception {
    for (CompletableFuture<?> f : inFlight) {
      try {
        f.get(30, TimeUnit.SECONDS);
      } catch (ExecutionException failed) {
        // a failed call may or may not have landed: only acknowledged ones are counted
      }
    }
    inFlight.clear();
  }
}
