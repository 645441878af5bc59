package io.windowpane.redis;

import static io.windowpane.testkit.reconfigure.ReconfigureScenarios.quota;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import io.windowpane.Leasing;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.reconfigure.ReconfigureScenarios;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Windowpane.reconfigure on a real redis-server: the new store reads the keys of the old one
 * (they are named by the limiter's name and windows, the permits travel with each call), so
 * every key keeps its counts; with leasing, the old slices go back first; through a chain
 * [Redis, local], what the fallback took before a change is replayed into Redis and decided
 * against the new permits.
 */
@ExtendWith(RedisServerExtension.class)
class RedisReconfigureIT {

  private final RedisServer redis;
  private final ManualClock clock = ManualClock.at(1_700_000_000_003L);

  RedisReconfigureIT(RedisServer redis) {
    this.redis = redis;
  }

  private Windowpane redisWindowpane() {
    return Windowpane.using(RedisEngine.builder().uri(redis.uri()).clock(clock)
        .expiryGrace(Duration.ofMinutes(10)).build());
  }

  @Test
  void changedPermits_keepEveryKeysCounts_inEachLayout() {
    try (Windowpane wp = redisWindowpane()) {
      ReconfigureScenarios.changedPermits_keepEveryKeysCounts(wp, clock);
    }
  }

  @Test
  void anotherProcess_withTheNewPermits_sharesTheCounts() {
    WindowSpec minute = WindowSpec.panes(Duration.ofMinutes(1), 60);
    try (Windowpane a = redisWindowpane(); Windowpane b = redisWindowpane()) {
      RateLimiter before = a.limiter("shared", quota(10, minute));
      before.tryAcquire("k", 7);
      a.reconfigure("shared", quota(8, minute));
      RateLimiter restarted = b.limiter("shared", quota(8, minute));
      assertThat(restarted.tryAcquire("k")).isEqualTo(Decision.allowed(0));
      assertThat(before.tryAcquire("k").allowed()).isFalse();
    }
  }

  @Test
  void leasing_givesTheOldSlicesBack_beforeTheNewPermitsApply() {
    WindowSpec w = WindowSpec.panes(Duration.ofSeconds(10), 10);
    Leasing leasing = Leasing.defaults().clock(clock);
    try (Windowpane wp = redisWindowpane()) {
      RateLimiter limiter = wp.limiter("reconf-leased", quota(1_000, w).withLeasing(leasing));
      for (int i = 0; i < 200; i++) {
        assertThat(limiter.tryAcquire("hot").allowed()).isTrue();
        clock.advance(1);
      }
      assertThat(limiter.leaseStats().orElseThrow().leases()).isPositive();
      wp.reconfigure("reconf-leased", quota(250, w).withLeasing(leasing));
      long more = 0;
      while (limiter.tryAcquire("hot").allowed()) {
        more++;
      }
      assertThat(more).as("200 taken of 250").isEqualTo(50);
    }
  }

  @Test
  void chain_replaysWhatTheFallbackTookBeforeTheChange_intoRedis_underTheNewPermits() {
    WindowSpec hour = WindowSpec.panes(Duration.ofHours(1), 60);
    Failover chain = Failover.chain(RedisEngine.builder().uri(redis.uri()).buildDeferred(),
            Windowpane.localBuilder().buildEngine())
        .callTimeout(Duration.ofMillis(300)).probeTimeout(Duration.ofMillis(300))
        .probeInterval(Duration.ofMillis(50)).latencyThreshold(Duration.ofSeconds(1)).build();
    try (Windowpane wp = Windowpane.using(chain)) {
      RateLimiter limiter = wp.limiter("reconf-chain", quota(10, hour));
      assertThat(limiter.tryAcquire("k", 4).engine()).contains("redis");
      redis.pause();
      try {
        await(chain, Health.DOWN, limiter);
        Decision fallback = limiter.tryAcquire("k", 3);
        assertThat(fallback.engine()).contains("local");
        wp.reconfigure("reconf-chain", quota(8, hour));
      } finally {
        redis.resume();
      }
      await(chain, Health.UP, null);
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (chain.status().get(0).pendingReplay() > 0 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      Decision last = limiter.tryAcquire("k");
      assertThat(last.engine()).contains("redis");
      assertThat(last.allowed()).as("4 + 3 replayed of 8").isTrue();
      assertThat(last.remaining()).isZero();
      assertThat(limiter.tryAcquire("k").allowed()).isFalse();
    }
  }

  /** Waits (bounded) until the first member is {@code health}, calling {@code poke} meanwhile. */
  private static void await(Failover chain, Health health, RateLimiter poke) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (chain.status().get(0).health() != health && System.nanoTime() < deadline) {
      if (poke != null) {
        poke.tryAcquire("poke");
      } else {
        Thread.onSpinWait();
      }
    }
    assertThat(chain.status().get(0).health()).as("%s", chain.status()).isEqualTo(health);
  }
}
