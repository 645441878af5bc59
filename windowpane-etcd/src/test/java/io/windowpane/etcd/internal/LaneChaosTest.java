package io.windowpane.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The key lanes of two engines ("processes") on one {@link ChaosSeam}, seeded: adds, limiter
 * acquires and replays of the same keys race each other into shared transactions while a fifth
 * of the writes lose their answer (landed, not landed, or landing later after the caller was
 * told it failed), reads fail, and compares fail to the other process. Replays carry times up
 * to 30 s behind the clock and some ids are sent again while earlier tries are still queued;
 * leases take up to a few permits and give all but one back by release ids, some sent twice or
 * while queued. Once the seam is calm, every replay and release is sent again until
 * acknowledged, as a failover chain and a lease holder do. Then no key may hold fewer events
 * than were acknowledged (granted leases less their releases): a lost answer may double an
 * event (a write that landed late is recomputed), never lose one, and a release is applied
 * once. The manual clock moves by up to 7 ms a step, 3,000 steps, so panes roll and every event
 * stays inside the 60 s windows.
 */
class LaneChaosTest {

  private static final WindowSpec MINUTE = WindowSpec.panes(Duration.ofSeconds(60), 60);
  private static final WindowSpec LOG = WindowSpec.log(Duration.ofSeconds(60));
  private static final long LIMIT = 1_000_000;
  private static final String[] KEYS = {"user:1", "user:2"};

  @Test
  void addsAndReplays_withLostAndLateAnswers_neverHoldFewerThanTheAcknowledgedEvents()
      throws Exception {
    // 15 seeds (was 30, 17 s at load 10): each runs 3,000 steps of two processes over the seam
    for (long seed = 1; seed <= 15; seed++) {
      run(seed);
    }
  }

  private record Sent(String key, long n, long at, String id) {}

  private void run(long seed) throws Exception {
    Random r = new Random(seed);
    ChaosSeam seam = new ChaosSeam(seed, 0.2);
    ManualClock clock = ManualClock.at(1_700_000_000_000L + r.nextInt(1_000));
    long timeout = r.nextBoolean() ? 60 : 5_000; // 60 ms: operations also expire mid-retry
    List<Context> ctxs = new ArrayList<>();
    List<EtcdCounterStore> panes = new ArrayList<>();
    List<EtcdCounterStore> logs = new ArrayList<>();
    List<EtcdLimiterStore> limiters = new ArrayList<>();
    Quota quota = Quota.of(Limit.of(LIMIT, MINUTE), Limit.of(LIMIT, LOG));
    for (int p = 0; p < 2; p++) { // two processes on one seam: compares fail too
      Context ctx = new Context(seam, clock, "t", timeout, 600_000, 1_000, 1, 2, 1_500_000, 0);
      ctxs.add(ctx);
      panes.add(new EtcdCounterStore(ctx, "c", MINUTE));
      logs.add(new EtcdCounterStore(ctx, "g", LOG));
      limiters.add(new EtcdLimiterStore(ctx, "l", quota));
    }
    Map<String, AtomicLong> acked = new HashMap<>();
    Map<String, AtomicLong> ackedLog = new HashMap<>();
    Map<String, AtomicLong> allowed = new HashMap<>();
    Map<String, AtomicLong> replayed = new HashMap<>();
    Map<String, AtomicLong> leased = new HashMap<>();
    Map<String, AtomicLong> released = new HashMap<>();
    List<Sent> releases = java.util.Collections.synchronizedList(new ArrayList<>());
    for (String k : KEYS) {
      acked.put(k, new AtomicLong());
      ackedLog.put(k, new AtomicLong());
      allowed.put(k, new AtomicLong());
      replayed.put(k, new AtomicLong());
      leased.put(k, new AtomicLong());
      released.put(k, new AtomicLong());
    }
    List<Sent> replays = new ArrayList<>();
    List<CompletableFuture<?>> inFlight = new ArrayList<>();
    try {
      for (int step = 0; step < 3_000; step++) {
        clock.advance(r.nextInt(8));
        int p = r.nextInt(2);
        String key = KEYS[r.nextInt(2)];
        long n = 1 + r.nextInt(3);
        switch (r.nextInt(6)) {
          case 0:
            inFlight.add(panes.get(p).addAsync(key, n).toCompletableFuture()
                .thenRun(() -> acked.get(key).addAndGet(n)));
            break;
          case 1:
            inFlight.add(logs.get(p).addAsync(key, n).toCompletableFuture()
                .thenRun(() -> ackedLog.get(key).addAndGet(n)));
            break;
          case 2:
            inFlight.add(limiters.get(p).tryAcquireAsync(key, n).toCompletableFuture()
                .thenAccept(d -> {
                  if (d.allowed()) {
                    allowed.get(key).addAndGet(n);
                  }
                }));
            break;
          case 3:
            String releaseId = "x" + seed + "-" + step;
            inFlight.add(limiters.get(p).leaseAsync(key, 1, n + 2).toCompletableFuture()
                .thenAccept(g -> {
                  long granted = g.orElseThrow().permits();
                  leased.get(key).addAndGet(granted);
                  if (granted > 1) { // gives all but one back, in a later step
                    releases.add(new Sent(key, granted - 1, g.get().atMillis(), releaseId));
                  }
                }));
            break;
          case 4:
            if (!releases.isEmpty()) { // some more than once, some while an earlier try is queued
              Sent back = releases.get(r.nextInt(releases.size()));
              inFlight.add(limiters.get(p).releaseAsync(back.key, back.n, back.at, back.id)
                  .toCompletableFuture());
            }
            break;
          default:
            boolean again = !replays.isEmpty() && r.nextInt(4) == 0; // one of the last 50
            Sent s = again
                ? replays.get(replays.size() - 1 - r.nextInt(Math.min(50, replays.size())))
                : new Sent(key, n, clock.millis() - r.nextInt(30_000), "s" + seed + "-" + step);
            if (!again) {
              replays.add(s);
            }
            inFlight.add(replay(panes.get(p), logs.get(p), limiters.get(p), s));
            break;
        }
        if (inFlight.size() >= 200 || r.nextInt(500) == 0) {
          drain(inFlight);
        }
      }
      drain(inFlight);
      seam.settle();
      for (Sent s : replays) { // as a chain would: sent again until acknowledged
        for (int attempt = 0; ; attempt++) {
          try {
            replay(panes.get(0), logs.get(0), limiters.get(0), s).get(10, TimeUnit.SECONDS);
            break;
          } catch (Exception e) {
            assertThat(attempt).as("seed %d: replay %s keeps failing on a calm seam: %s", seed,
                s, e).isLessThan(20);
          }
        }
        replayed.get(s.key).addAndGet(s.n);
      }
      for (Sent s : releases) { // as a lease holder would: sent again until acknowledged
        for (int attempt = 0; ; attempt++) {
          try {
            limiters.get(1).releaseAsync(s.key, s.n, s.at, s.id).toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
            break;
          } catch (Exception e) {
            assertThat(attempt).as("seed %d: release %s keeps failing on a calm seam: %s", seed,
                s, e).isLessThan(20);
          }
        }
        released.get(s.key).addAndGet(s.n);
      }
      for (String k : KEYS) {
        long want = acked.get(k).get() + replayed.get(k).get();
        String what = "seed " + seed + " " + k + " (timeout " + timeout + " ms, landed-lost "
            + seam.landedLost + ", lost " + seam.lostBeforeLanding + ", late " + seam.landedLate
            + ")";
        assertThat(panes.get(1).count(k)).as(what + " panes").isGreaterThanOrEqualTo(want);
        assertThat(logs.get(1).count(k)).as(what + " log")
            .isGreaterThanOrEqualTo(ackedLog.get(k).get() + replayed.get(k).get());
        long taken = LIMIT - 1 - limiters.get(1).tryAcquire(k, 1).remaining();
        assertThat(taken).as(what + " limiter").isGreaterThanOrEqualTo(allowed.get(k).get()
            + replayed.get(k).get() + leased.get(k).get() - released.get(k).get());
      }
    } finally {
      ctxs.forEach(Context::close);
    }
  }

  private static CompletableFuture<?> replay(EtcdCounterStore panes, EtcdCounterStore log,
      EtcdLimiterStore limiter, Sent s) {
    return CompletableFuture.allOf(
        panes.replayAsync(s.key, s.n, s.at, s.id).toCompletableFuture(),
        log.replayAsync(s.key, s.n, s.at, s.id).toCompletableFuture(),
        limiter.replayAsync(s.key, s.n, s.at, s.id).toCompletableFuture());
  }

  private static void drain(List<CompletableFuture<?>> inFlight) throws Exception {
    for (CompletableFuture<?> f : inFlight) {
      try {
        f.get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException failed) {
        // a failed call may or may not have landed: only acknowledged ones are counted
      }
    }
    inFlight.clear();
  }
}
