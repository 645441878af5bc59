package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.TopKey;
import io.windowpane.WindowSpec;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Leasing on Redis (wp_lease, wp_release).
 * The model check: a limiter that leases, acquires and gives leased permits back ends in exactly
 * the state of one that only recorded, at each grant's time, what was kept of it (built by
 * replays), so both answer every later request alike, for panes, weighted, log and a quota of
 * all three; each grant is the largest that fits, and a refusal is the denial of min.
 */
@ExtendWith(RedisServerExtension.class)
class RedisLeaseIT {

  private static final Duration TEN_SECONDS = Duration.ofSeconds(10);
  private static final AtomicInteger NAMES = new AtomicInteger();

  /** How an engine runs limiters. */
  enum Mode { FUNCTIONS, EVALSHA }

  private final RedisServer redis;

  RedisLeaseIT(RedisServer redis) {
    this.redis = redis;
  }

  private RedisEngine engine(Mode mode, ManualClock clock) {
    RedisEngine.Builder b = RedisEngine.builder().uri(redis.uri()).clock(clock)
        .expiryGrace(TestEngines.TEST_GRACE);
    b.scripts(mode == Mode.FUNCTIONS ? ScriptMode.FUNCTIONS : ScriptMode.EVALSHA);
    return b.build();
  }

  private static String name() {
    return "lease" + NAMES.incrementAndGet();
  }

  static Map<String, Quota> quotas() {
    return Map.of(
        "panes", Quota.of(Limit.of(20, WindowSpec.panes(TEN_SECONDS, 10))),
        "weighted", Quota.of(Limit.of(20, WindowSpec.weighted(TEN_SECONDS))),
        "log", Quota.of(Limit.of(20, WindowSpec.log(TEN_SECONDS))),
        "three", Quota.of(Limit.of(8, WindowSpec.panes(Duration.ofSeconds(1), 10)),
            Limit.of(20, WindowSpec.weighted(TEN_SECONDS)),
            Limit.of(30, WindowSpec.log(Duration.ofSeconds(30)))));
  }

  static Stream<Arguments> modesAndQuotas() {
    List<Arguments> out = new ArrayList<>();
    for (Mode mode : Mode.values()) {
      for (String quota : List.of("panes", "weighted", "log", "three")) {
        out.add(Arguments.of(mode, quota));
      }
    }
    return out.stream();
  }

  @ParameterizedTest
  @MethodSource("modesAndQuotas")
  void leasesAndReleases_endInTheStateOfAcquiresOfWhatWasKept(Mode mode, String quota) {
    long start = quota.length() % 2 == 0 ? -5_017 : TestEngines.startInstants()[0];
    ManualClock clock = ManualClock.at(start);
    try (RedisEngine engine = engine(mode, clock)) {
      leaseModel(engine, clock, quotas().get(quota), 41 + quota.hashCode());
    }
  }

  /**
   * Seeded random leases, acquires and releases (some repeated with the same id) on one key,
   * checked as they go; then the kept permits are replayed into a second limiter at their times,
   * and both must answer the same decisions as time moves across every window.
   */
  static void leaseModel(RedisEngine engine, ManualClock clock, Quota quota, long seed) {
    Random random = new Random(seed);
    long smallest = quota.smallestPermits();
    LimiterStore leasing = engine.limiterStore(name(), quota);
    List<long[]> kept = new ArrayList<>(); // {time, permits kept}
    List<long[]> open = new ArrayList<>(); // {index in kept, permits still releasable}
    String lastId = null;
    long[] lastRelease = null;
    for (int step = 0; step < 90; step++) {
      clock.advance(random.nextInt(8) == 0 ? random.nextInt(12_000) : random.nextInt(400));
      long now = clock.millis();
      int op = random.nextInt(4);
      if (op == 0) {
        long permits = 1 + random.nextInt((int) smallest);
        if (leasing.tryAcquire("k", permits).allowed()) {
          kept.add(new long[] {now, permits});
        }
      } else if (op == 1 || open.isEmpty()) {
        long min = 1 + random.nextInt(3);
        long max = min + random.nextInt((int) (smallest - min + 1));
        Grant grant = leasing.lease("k", min, max).orElseThrow();
        assertThat(grant.atMillis()).as("the engine's time").isEqualTo(now);
        if (grant.permits() == 0) {
          assertThat(grant.decision())
              .as("the denial of min").isEqualTo(leasing.tryAcquire("k", min));
          continue;
        }
        assertThat(grant.permits()).isBetween(min, max);
        if (grant.permits() < max) {
          assertThat(grant.decision().remaining()).as("all the room").isZero();
          assertThat(leasing.tryAcquire("k", 1).allowed()).as("nothing left beside it").isFalse();
        }
        kept.add(new long[] {now, grant.permits()});
        open.add(new long[] {kept.size() - 1, grant.permits()});
      } else if (op == 2 && lastId != null) {
        release(leasing, lastRelease, lastId); // the same release again: no change
      } else {
        long[] lease = open.get(random.nextInt(open.size()));
        long permits = 1 + random.nextInt((int) lease[1]);
        lastId = "rel-" + step;
        lastRelease = new long[] {kept.get((int) lease[0])[0], permits};
        release(leasing, lastRelease, lastId);
        lease[1] -= permits;
        kept.get((int) lease[0])[1] -= permits;
        if (lease[1] == 0) {
          open.remove(lease);
        }
      }
    }
    LimiterStore replayed = engine.limiterStore(name(), quota);
    for (int i = 0; i < kept.size(); i++) {
      if (kept.get(i)[1] > 0) {
        replayed.replayAsync("k", kept.get(i)[1], kept.get(i)[0], "e" + i).toCompletableFuture()
            .join();
      }
    }
    for (int step = 0; step < 40; step++) {
      long permits = 1 + random.nextInt((int) smallest);
      assertThat(leasing.tryAcquire("k", permits))
          .as("step %d at %d, %d permits", step, clock.millis(), permits)
          .isEqualTo(replayed.tryAcquire("k", permits));
      clock.advance(random.nextInt(1_500));
    }
  }

  private static void release(LimiterStore limiter, long[] timeAndPermits, String id) {
    limiter.releaseAsync("k", timeAndPermits[1], timeAndPermits[0], id).toCompletableFuture()
        .join();
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void release_givesBackOncePerId_neverBelowZero_andNothingOnceTheWindowLeft(Mode mode) {
    long base = Math.floorDiv(TestEngines.startInstants()[0], 10_000) * 10_000;
    ManualClock clock = ManualClock.at(base + 100);
    try (RedisEngine engine = engine(mode, clock)) {
      LimiterStore limiter = engine.limiterStore(name(),
          Quota.of(Limit.of(10, WindowSpec.panes(TEN_SECONDS, 10))));
      assertThat(limiter.tryAcquire("k", 2).remaining()).isEqualTo(8);
      Grant grant = limiter.lease("k", 1, 10).orElseThrow();
      assertThat(grant.permits()).isEqualTo(8);
      assertThat(grant.atMillis()).isEqualTo(base + 100);
      assertThat(grant.decision()).isEqualTo(Decision.allowed(0));
      clock.set(base + 3_500);
      limiter.releaseAsync("k", 5, grant.atMillis(), "r1").toCompletableFuture().join();
      limiter.releaseAsync("k", 5, grant.atMillis(), "r1").toCompletableFuture().join();
      assertThat(limiter.tryAcquire("k", 5)).as("5 back, once").isEqualTo(Decision.allowed(0));
      limiter.releaseAsync("k", 10, grant.atMillis(), "r2").toCompletableFuture().join();
      assertThat(limiter.tryAcquire("k", 10).allowed())
          .as("the pane of the grant emptied, the pane of base + 3,500 keeps its 5").isFalse();
      assertThat(limiter.tryAcquire("k", 5)).isEqualTo(Decision.allowed(0));
      clock.set(base + 10_000); // the grant's pane has left
      limiter.releaseAsync("k", 3, grant.atMillis(), "r3").toCompletableFuture().join();
      Decision denied = limiter.tryAcquire("k", 1);
      assertThat(denied.allowed()).isFalse();
      assertThat(denied.retryAfterMillis()).as("until the pane of base + 3,500 leaves")
          .isEqualTo(3_000);
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void lease_belowMin_grantsNothing_withTheDenialOfMin_inAQuota(Mode mode) {
    long base = Math.floorDiv(TestEngines.startInstants()[0], 10_000) * 10_000;
    ManualClock clock = ManualClock.at(base + 250);
    try (RedisEngine engine = engine(mode, clock)) {
      Limit perSecond = Limit.of(5, WindowSpec.panes(Duration.ofSeconds(1), 10));
      Limit perTen = Limit.of(12, WindowSpec.log(TEN_SECONDS));
      LimiterStore limiter = engine.limiterStore(name(), Quota.of(perSecond, perTen));
      assertThat(limiter.lease("k", 2, 5).orElseThrow().permits()).isEqualTo(5);
      Grant refused = limiter.lease("k", 1, 5).orElseThrow();
      assertThat(refused.permits()).isZero();
      assertThat(refused.decision()).isEqualTo(Decision.denied(0, perSecond, 950));
      clock.set(base + 1_250);
      assertThat(limiter.lease("k", 1, 5).orElseThrow().permits()).isEqualTo(5);
      clock.set(base + 2_250);
      Grant last = limiter.lease("k", 1, 5).orElseThrow();
      assertThat(last.permits()).as("the log's room").isEqualTo(2);
      assertThat(last.decision().remaining()).isZero();
      clock.set(base + 3_250);
      Grant none = limiter.lease("k", 2, 4).orElseThrow();
      assertThat(none.permits()).isZero();
      assertThat(none.decision()).isEqualTo(Decision.denied(0, perTen, 7_000));
      assertThat(none.decision()).isEqualTo(limiter.tryAcquire("k", 2));
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void concurrentLeasesAndReleases_grantExactlyTheLimitInAll(Mode mode) throws Exception {
    ManualClock clock = ManualClock.at(TestEngines.startInstants()[0]);
    try (RedisEngine engine = engine(mode, clock)) {
      Limit panes = Limit.of(250, WindowSpec.panes(Duration.ofHours(1), 10));
      LimiterStore limiter = engine.limiterStore(name(),
          Quota.of(panes, Limit.of(300, WindowSpec.log(Duration.ofHours(1)))));
      AtomicLong held = new AtomicLong(); // granted less released, over every thread
      List<Thread> threads = new ArrayList<>();
      List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
      for (int t = 0; t < 4; t++) {
        Random random = new Random(t);
        String prefix = "t" + t + "-";
        threads.add(new Thread(() -> {
          try {
            for (int i = 0; ; i++) {
              Grant grant = limiter.leaseAsync("k", 1, 7).toCompletableFuture().join()
                  .orElseThrow();
              if (grant.permits() == 0) {
                return;
              }
              held.addAndGet(grant.permits());
              if (random.nextInt(3) == 0) {
                long back = 1 + random.nextInt((int) grant.permits());
                limiter.releaseAsync("k", back, grant.atMillis(), prefix + i)
                    .toCompletableFuture().join();
                limiter.releaseAsync("k", back, grant.atMillis(), prefix + i) // a retry
                    .toCompletableFuture().join();
                held.addAndGet(-back);
              }
            }
          } catch (Throwable e) {
            failures.add(e);
          }
        }));
      }
      threads.forEach(Thread::start);
      for (Thread thread : threads) {
        thread.join(60_000);
      }
      assertThat(failures).isEmpty();
      Grant rest = limiter.lease("k", 1, 250).orElseThrow();
      assertThat(held.get() + rest.permits()).as("every permit granted once").isEqualTo(250);
      assertThat(limiter.lease("k", 1, 1).orElseThrow().decision().deniedBy()).contains(panes);
    }
  }

  @Test
  void lease_feedsTheTopKeysLikeAnAcquireOfTheGrant() {
    ManualClock clock = ManualClock.at(TestEngines.startInstants()[0]);
    try (RedisEngine engine = engine(Mode.FUNCTIONS, clock)) {
      LimiterStore limiter = engine.limiterStore(name(),
          Quota.of(Limit.of(10, WindowSpec.panes(TEN_SECONDS, 10))).withTopKeys());
      assertThat(limiter.lease("hot", 1, 7).orElseThrow().permits()).isEqualTo(7);
      assertThat(limiter.tryAcquire("cold", 2).allowed()).isTrue();
      assertThat(limiter.lease("hot", 4, 4).orElseThrow().permits()).isZero();
      assertThat(limiter.topKeys(5, false).orElseThrow())
          .containsExactly(new TopKey("hot", 7, 0), new TopKey("cold", 2, 0));
      assertThat(limiter.topKeys(5, true).orElseThrow()).containsExactly(new TopKey("hot", 1, 0));
    }
  }

  @Test
  void serverTime_theGrantCarriesTheServersClock() {
    try (RedisEngine engine = RedisEngine.builder().uri(redis.uri()).build()) {
      LimiterStore limiter = engine.limiterStore(name(),
          Quota.of(Limit.of(10, WindowSpec.log(TEN_SECONDS))));
      long before = System.currentTimeMillis(); // the server runs on this machine's clock
      Grant grant = limiter.leaseAsync("k", 1, 6).toCompletableFuture().join().orElseThrow();
      assertThat(grant.permits()).isEqualTo(6);
      assertThat(grant.atMillis()).isBetween(before - 1_000, System.currentTimeMillis() + 1_000);
      limiter.releaseAsync("k", 6, grant.atMillis(), "all").toCompletableFuture().join();
      assertThat(limiter.tryAcquire("k", 10).allowed()).as("the log entry emptied").isTrue();
    }
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void badReleaseId_failsTheStageWithIllegalArgument_andChangesNothing(Mode mode) {
    ManualClock clock = ManualClock.at(TestEngines.startInstants()[0]);
    try (RedisEngine engine = engine(mode, clock)) {
      LimiterStore limiter = engine.limiterStore(name(),
          Quota.of(Limit.of(4, WindowSpec.weighted(TEN_SECONDS))));
      Grant grant = limiter.lease("k", 1, 4).orElseThrow();
      assertThat(limiter.releaseAsync("k", 4, grant.atMillis(), "no spaces")
          .toCompletableFuture())
          .failsWithin(Duration.ofSeconds(2))
          .withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(IllegalArgumentException.class)
          .withMessageContaining("releaseId");
      assertThat(limiter.tryAcquire("k", 1).allowed()).isFalse();
    }
  }

  @Test
  void redis6_leasesAndReleasesThroughEval() {
    try (RedisServer old = RedisServer.startRedis6()) {
      ManualClock clock = ManualClock.at(TestEngines.startInstants()[0]);
      try (RedisEngine engine = RedisEngine.builder().uri(old.uri()).clock(clock)
          .expiryGrace(TestEngines.TEST_GRACE).build()) {
        assertThat(engine.usesFunctions()).isFalse();
        leaseModel(engine, clock, quotas().get("three"), 6);
      }
    }
  }

  @Test
  void cluster_leasesAndReleasesAQuotaInOneSlot() {
    try (RedisCluster cluster = RedisCluster.start()) {
      ManualClock clock = ManualClock.at(TestEngines.startInstants()[0]);
      try (RedisEngine engine = RedisEngine.builder()
          .cluster(cluster.seedUris().toArray(new String[0])).clock(clock)
          .expiryGrace(TestEngines.TEST_GRACE).build()) {
        leaseModel(engine, clock, quotas().get("three"), 7);
        LimiterStore limiter = engine.limiterStore(name(), quotas().get("three"));
        for (int i = 0; i < 12; i++) { // keys spread over the three primaries
          Grant grant = limiter.lease("user:" + i, 1, 8).orElseThrow();
          assertThat(grant.permits()).isEqualTo(8);
          limiter.releaseAsync("user:" + i, 3, grant.atMillis(), "c" + i).toCompletableFuture()
              .join();
          assertThat(limiter.tryAcquire("user:" + i, 3).remaining()).isZero();
        }
      }
    }
  }
}
