package io.windowpane.internal.leasing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Decision;
import io.windowpane.LeaseStats;
import io.windowpane.Leasing;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Engine;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Hot-key leasing over the local engine, with a manual clock for the engine's time and the lease
 * deadlines: a leasing limiter decides exactly as the same limiter without leasing on one node,
 * answers a hot key almost entirely from its slices, returns unspent permits when a lease ends,
 * keeps several nodes sharing one engine within the limit with exact totals under threads, drops
 * idle keys, and turns itself off on an engine that cannot lease.
 */
class LeasingLimiterTest {

  private static final long T0 = 1_700_000_000_000L + 3;
  private static final Duration SECOND = Duration.ofSeconds(1);

  private static Quota leasing(Quota quota, ManualClock clock) {
    return quota.withLeasing(Leasing.defaults().clock(clock).logLifetime(Duration.ofMillis(1)));
  }

  @Test
  void options_badValues_areRefusedNamingTheArgument() {
    Leasing d = Leasing.defaults();
    assertThatThrownBy(() -> d.maxShare(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("share must be in (0, 1], was 0.0");
    assertThatThrownBy(() -> d.maxShare(1.01)).hasMessageContaining("share must be in (0, 1]");
    assertThatThrownBy(() -> d.maxShare(Double.NaN)).hasMessageContaining("was NaN");
    assertThatThrownBy(() -> d.maxSlice(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("permits must be in [1, 1099511627775], was 0");
    assertThatThrownBy(() -> d.logLifetime(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lifetime must be in [1 ms, 60000 ms]");
    assertThatThrownBy(() -> d.logLifetime(Duration.ofMinutes(2)))
        .hasMessageContaining("lifetime must be in [1 ms, 60000 ms]");
    assertThatThrownBy(() -> d.clock(null)).hasMessage("clock must not be null");
    assertThatThrownBy(() -> Quota.of(Limit.of(1, WindowSpec.log(SECOND))).withLeasing(null))
        .hasMessage("leasing must not be null");
    assertThat(d.maxShare(1).maxSlice(7).logLifetime(Duration.ofMillis(3)))
        .isEqualTo(d.maxShare(1).maxSlice(7).logLifetime(Duration.ofMillis(3)))
        .isNotEqualTo(d);
  }

  @Test
  void oneNode_decidesExactlyAsWithoutLeasing() {
    List<Quota> quotas = List.of(
        Quota.of(Limit.of(300, WindowSpec.panes(SECOND, 10))),
        Quota.of(Limit.of(300, WindowSpec.weighted(SECOND))),
        Quota.of(Limit.of(300, WindowSpec.log(SECOND))),
        Quota.of(Limit.of(500, WindowSpec.panes(Duration.ofSeconds(5), 5)),
            Limit.of(120, WindowSpec.panes(SECOND, 4))));
    for (int q = 0; q < quotas.size(); q++) {
      Quota quota = quotas.get(q);
      boolean panesOnly = q == 0 || q == 3;
      Random random = new Random(15 + q);
      ManualClock clock = ManualClock.at(T0);
      try (Windowpane plainNode = Windowpane.localBuilder().clock(clock).build();
           Windowpane leasingNode = Windowpane.localBuilder().clock(clock).build()) {
        RateLimiter plain = plainNode.limiter("l", quota);
        RateLimiter leased = leasingNode.limiter("l", leasing(quota, clock));
        for (int i = 0; i < 6_000; i++) {
          if (random.nextInt(8) == 0) {
            clock.advance(random.nextInt(random.nextInt(10) == 0 ? 900 : 40));
          }
          String key = random.nextInt(4) == 0 ? "cold" : "hot";
          long permits = 1 + random.nextInt(random.nextInt(6) == 0 ? 20 : 2);
          Decision expected = plain.tryAcquire(key, permits);
          Decision actual = leased.tryAcquire(key, permits);
          String where = quota + " step " + i + " at " + clock.millis();
          assertThat(actual.allowed()).as(where).isEqualTo(expected.allowed());
          assertThat(actual.retryAfterMillis()).as(where).isEqualTo(expected.retryAfterMillis());
          assertThat(actual.deniedBy()).as(where).isEqualTo(expected.deniedBy());
          if (panesOnly || !actual.allowed()) {
            assertThat(actual.remaining()).as(where).isEqualTo(expected.remaining());
          } else {
            assertThat(actual.remaining()).as(where).isBetween(0L, expected.remaining());
          }
        }
        LeaseStats stats = leased.leaseStats().orElseThrow();
        assertThat(stats.active()).isTrue();
        assertThat(stats.localDecisions()).as("%s: slices answered", quota).isPositive();
      }
    }
  }

  @Test
  void hotKey_isAnsweredAlmostEntirelyOnTheNode() {
    ManualClock clock = ManualClock.at(T0);
    try (Windowpane wp = Windowpane.localBuilder().clock(clock).build()) {
      RateLimiter limiter = wp.limiter("hot",
          leasing(Quota.of(Limit.of(1_000_000, WindowSpec.panes(SECOND, 10))), clock));
      long allowed = 0;
      for (int i = 0; i < 100_000; i++) {
        allowed += limiter.tryConsume("k", 1) ? 1 : 0;
      }
      assertThat(allowed).isEqualTo(100_000);
      LeaseStats stats = limiter.leaseStats().orElseThrow();
      assertThat(stats.leases()).as("slices grow from 1 permit").isBetween(2L, 40L);
      assertThat(stats.localHitRatio()).isGreaterThan(0.999);
      assertThat(stats.leasedPermits()).isGreaterThanOrEqualTo(100_000)
          .isLessThanOrEqualTo(200_000); // at most a tenth of the room per slice
    }
  }

  @Test
  void unspentPermits_areRoomAgainWhenTheLeaseEnds() {
    ManualClock clock = ManualClock.at(T0 - T0 % 100); // on a pane edge
    SharedEngine engine = new SharedEngine(clock);
    Quota quota = Quota.of(Limit.of(10_000, WindowSpec.panes(SECOND, 10)));
    try (Windowpane a = Windowpane.using(engine.node()); Windowpane b =
        Windowpane.using(engine.node())) {
      RateLimiter hot = a.limiter("l", leasing(quota, clock));
      RateLimiter plain = b.limiter("l", quota);
      for (int i = 0; i < 50; i++) {
        assertThat(hot.tryConsume("k", 1)).isTrue();
      }
      LeaseStats held = hot.leaseStats().orElseThrow();
      // spent from slices: every local decision and the holder's own permit of each lease (the
      // first request went to the engine as a plain tryAcquire)
      long unspent = held.leasedPermits() - held.localDecisions() - held.leases();
      assertThat(unspent).as("node A holds a slice").isPositive();
      assertThat(plain.peek("k", 1).orElseThrow().remaining())
          .as("the engine counts A's whole slice").isEqualTo(10_000 - 50 - unspent - 1);
      clock.advance(99); // the pane of the grants has ended on A's clock
      hot.cleanUp();
      assertThat(hot.leaseStats().orElseThrow().returnedPermits()).isEqualTo(unspent);
      assertThat(plain.peek("k", 1).orElseThrow().remaining())
          .as("only what A spent stays counted").isEqualTo(10_000 - 50 - 1);
    }
  }

  @Test
  void threeNodesSharingOneEngine_admitExactlyTheRoom_underThreads() throws Exception {
    ManualClock clock = ManualClock.at(T0);
    SharedEngine engine = new SharedEngine(clock);
    Limit limit = Limit.of(4_000, WindowSpec.panes(SECOND, 10));
    List<Windowpane> nodes = new ArrayList<>();
    List<RateLimiter> limiters = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      for (int n = 0; n < 3; n++) {
        nodes.add(Windowpane.using(engine.node()));
        limiters.add(nodes.get(n).limiter("l", leasing(Quota.of(limit), clock)));
      }
      long spentBefore = 0;
      for (int phase = 0; phase < 6; phase++) {
        List<Future<Long>> parts = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
          RateLimiter mine = limiters.get(t % 3);
          parts.add(pool.submit(() -> {
            long sum = 0;
            for (int i = 0; i < 1_500; i++) {
              sum += mine.tryConsume("hot", 1 + i % 2) ? 1 + i % 2 : 0;
            }
            return sum;
          }));
        }
        long allowed = 0;
        for (Future<Long> f : parts) {
          allowed += f.get();
        }
        long room = phase % 2 == 0 ? limit.permits() : limit.permits() - spentBefore;
        assertThat(allowed).as("phase %d: never more than the room", phase)
            .isLessThanOrEqualTo(room).isGreaterThanOrEqualTo(room - 3);
        spentBefore = allowed;
        clock.advance(phase % 2 == 0 ? 300 : 1_100); // same window, then a fresh one
      }
    } finally {
      pool.shutdownNow();
      for (Windowpane wp : nodes) {
        wp.close();
      }
    }
  }

  @Test
  void idleKeys_areDroppedAfterTheirLeaseEnds() {
    ManualClock clock = ManualClock.at(T0);
    Quota quota = leasing(Quota.of(Limit.of(1_000, WindowSpec.panes(SECOND, 10))), clock);
    try (Engine local = Windowpane.localBuilder().clock(clock).buildEngine()) {
      LimiterStore engineStore = local.limiterStore("l", quota.withoutLeasing());
      LeasingLimiterStore store = new LeasingLimiterStore("l", quota, engineStore, null);
      for (int k = 0; k < 1_000; k++) {
        store.tryConsume("k" + k, 1);
        store.tryConsume("k" + k, 1);
      }
      assertThat(store.trackedKeys()).isEqualTo(1_000);
      clock.advance(100);
      store.cleanUp(); // ends the leases
      clock.advance(LeasingLimiterStore.RETIRE_MILLIS);
      store.cleanUp(); // drops the idle keys
      assertThat(store.trackedKeys()).isZero();
      assertThat(store.tryConsume("k1", 1)).as("a dropped key leases afresh").isTrue();
      assertThat(store.trackedKeys()).isEqualTo(1);
    }
  }

  @Test
  void engineThatCannotLease_turnsLeasingOffAndStillDecides() {
    ManualClock clock = ManualClock.at(T0);
    Quota quota = Quota.of(Limit.of(1_000, WindowSpec.panes(SECOND, 10)));
    try (Engine local = Windowpane.localBuilder().clock(clock).buildEngine()) {
      LimiterStore engine = local.limiterStore("l", quota);
      LimiterStore beforeLeasing = new LimiterStore() { // an engine written before leasing
        @Override
        public Decision tryAcquire(String key, long permits) {
          return engine.tryAcquire(key, permits);
        }

        @Override
        public boolean holdsState(String key) {
          return engine.holdsState(key);
        }
      };
      LeasingLimiterStore store =
          new LeasingLimiterStore("l", leasing(quota, clock), beforeLeasing, null);
      // the first request is a slice of just itself (sent as tryAcquire, starting a streak of
      // MIN_STREAK permits); the second, in the same pane, asks for a bigger slice: the engine
      // cannot grant one, and leasing turns off
      assertThat(store.tryAcquire("k", LeasingLimiterStore.MIN_STREAK).allowed()).isTrue();
      assertThat(store.stats().active()).isTrue();
      assertThat(store.tryAcquire("k", 1).remaining()).isEqualTo(995);
      assertThat(store.stats().active()).isFalse();
      assertThat(store.tryAcquire("k", 995).remaining()).isZero();
      assertThat(store.tryConsume("k", 1)).isFalse();
      LeaseStats stats = store.stats();
      assertThat(stats.leases()).isZero();
      assertThat(stats.engineDecisions()).isEqualTo(4);
    }
  }

  /**
   * The local engine shared by several nodes: every node's limiter of a name is the same store,
   * as a Redis or etcd server is for a fleet. Nodes do not close it.
   */
  static final class SharedEngine {
    private final Engine engine;
    private final Map<String, LimiterStore> stores = new ConcurrentHashMap<>();

    SharedEngine(ManualClock clock) {
      engine = Windowpane.localBuilder().clock(clock).buildEngine();
    }

    Engine node() {
      return new Engine() {
        @Override
        public String name() {
          return "shared-local";
        }

        @Override
        public CounterStore counterStore(String name, WindowSpec spec) {
          return engine.counterStore(name, spec);
        }

        @Override
        public LimiterStore limiterStore(String name, Quota quota) {
          return stores.computeIfAbsent(name, n -> engine.limiterStore(n, quota));
        }

        @Override
        public StatsStore statsStore(String name, io.windowpane.StatsSpec spec) {
          return engine.statsStore(name, spec);
        }

        @Override
        public void close() {}
      };
    }
  }
}
