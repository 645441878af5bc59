package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import io.windowpane.Failover.Signal;
import io.windowpane.GroupDecision;
import io.windowpane.Limit;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.spi.DeferredEngine;
import io.windowpane.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A chain whose Redis is not running when it is built: it starts on the local fallback, Redis
 * starts later on the port it was given, and the chain goes UP by itself with every event taken
 * meanwhile replayed into Redis (exact). Real redis-server; the chain's own thread.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
class RedisStartDuringOutageIT {

  private static final WindowSpec MINUTE = WindowSpec.panes(Duration.ofMinutes(1), 60);

  @Test
  void chainBuiltWhileRedisIsDown_answersFromLocal_thenJoinsRedisWithEveryEvent() {
    int port = RedisServer.freePort();
    DeferredEngine redisMember = RedisEngine.builder().uri("redis://127.0.0.1:" + port)
        .connectTimeout(Duration.ofMillis(500)).buildDeferred();
    assertThat(redisMember.connected()).isFalse();
    assertThat(redisMember.lastFailure()).contains("cannot connect to Redis at 127.0.0.1:" + port);

    try (Windowpane wp = Windowpane.using(Failover.chain(redisMember,
        Windowpane.localBuilder().buildEngine()).build())) {
      Failover chain = wp.failover().orElseThrow();
      assertThat(chain.status().get(0).health()).isEqualTo(Health.DOWN);
      assertThat(chain.status().get(0).signals()).containsExactly(Signal.CONNECT);

      WindowCounter events = wp.counter("events", MINUTE);
      RateLimiter api = wp.limiter("api", Limit.of(1_000, MINUTE));
      RateLimiter tenant = wp.limiter("tenant", Limit.of(1_000, MINUTE));
      for (int i = 1; i <= 25; i++) {
        assertThat(events.add("k")).isEqualTo(i);
      }
      Decision d = api.tryAcquire("u", 10);
      assertThat(d.allowed()).isTrue();
      assertThat(d.engine()).contains("local");
      GroupDecision g = wp.tryAcquireAllOrNothing(List.of(api.request("u", 5),
          tenant.request("t", 5))).orElseThrow();
      assertThat(g.allowed()).isTrue();
      assertThat(g.decision().engine()).contains("local");

      try (RedisServer redis = RedisServer.startOn(port)) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (chain.status().get(0).health() != Health.UP && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        assertThat(chain.status().get(0).health()).as("%s", chain.status()).isEqualTo(Health.UP);
        assertThat(chain.stats().lostEvents()).isZero();

        try (Windowpane direct = Windowpane.using(RedisEngine.builder().uri(redis.uri())
            .build())) {
          assertThat(direct.counter("events", MINUTE).count("k")).isEqualTo(25);
          assertThat(direct.limiter("api", Limit.of(1_000, MINUTE)).peek("u", 1).orElseThrow()
              .remaining()).isEqualTo(1_000 - 15 - 1);
          assertThat(direct.limiter("tenant", Limit.of(1_000, MINUTE)).peek("t", 1)
              .orElseThrow().remaining()).isEqualTo(1_000 - 5 - 1);
        }
        assertThat(api.tryAcquire("u").engine()).contains("redis");

        // groups on Redis once it has joined: all or nothing, on one member
        RateLimiter five = wp.limiter("b-five", Limit.of(5, MINUTE));
        RateLimiter hundred = wp.limiter("a-hundred", Limit.of(100, MINUTE)); // leased first
        for (int i = 0; i < 5; i++) {
          GroupDecision ok = wp.tryAcquireAllOrNothing(List.of(five.request("n", 1),
              hundred.request("n", 1))).orElseThrow();
          assertThat(ok.allowed()).isTrue();
          assertThat(ok.decision().engine()).contains("redis");
        }
        GroupDecision over = wp.tryAcquireAllOrNothing(List.of(five.request("n", 1),
            hundred.request("n", 1))).orElseThrow();
        assertThat(over.allowed()).isFalse();
        assertThat(over.deniedIndex()).hasValue(0);
        assertThat(over.decision().engine()).contains("redis");
        // the request leased first, then given back: the room it had, 100 - 5
        assertThat(over.decisions().get(1).orElseThrow().remaining()).as("%s", over)
            .isEqualTo(95);
        assertThat(hundred.peek("n", 1).orElseThrow().remaining()).isEqualTo(100 - 5 - 1);
      }
    }
  }
}
