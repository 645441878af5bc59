package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.CapacityExceededException;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.WindowpaneTimeoutException;
import io.windowpane.redis.internal.FunctionLibrary;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisClusterNode;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A dead or slow Redis fails the call within the configured timeout with the engine's
 * exception, never hangs; bad credentials and bad options fail clearly.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
class FailuresIT {

  private static final Limit LIMIT = Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10));

  @Test
  void slowRedis_failsWithinTheTimeout() {
    try (RedisServer redis = RedisServer.start();
        Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri())
            .timeout(Duration.ofMillis(200)).build());
        RespClient admin = redis.client()) {
      RateLimiter limiter = wp.limiter("slow", LIMIT);
      assertThat(limiter.tryConsume("k", 1)).isTrue();
      admin.command("CLIENT", "PAUSE", "3000", "ALL");
      long start = System.nanoTime();
      assertThatThrownBy(() -> limiter.tryAcquire("k", 1))
          .isInstanceOf(WindowpaneTimeoutException.class).hasMessageContaining("tryAcquire");
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(tookMillis).as("bounded by the 200 ms timeout").isLessThan(1_500);
      CompletableFuture<?> async = limiter.tryAcquireAsync("k", 1).toCompletableFuture();
      assertThat(async).failsWithin(Duration.ofSeconds(2))
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withCauseInstanceOf(WindowpaneTimeoutException.class);
      admin.command("CLIENT", "UNPAUSE");
    }
  }

  @Test
  void deadRedis_failsFastAndTheEngineRecoversWhenItIsBack() {
    RedisServer redis = RedisServer.start();
    Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri())
        .timeout(Duration.ofMillis(300)).build());
    try {
      RateLimiter limiter = wp.limiter("dead", LIMIT);
      assertThat(limiter.tryConsume("k", 1)).isTrue();
      redis.close();
      long start = System.nanoTime();
      assertThatThrownBy(() -> limiter.tryAcquire("k", 1))
          .isInstanceOf(WindowpaneException.class);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1_500);
    } finally {
      wp.close();
      redis.close();
    }
  }

  @Test
  void noServer_buildFailsWithTheAddress() {
    int port;
    try (RedisServer redis = RedisServer.start()) {
      port = redis.port();
    }
    assertThatThrownBy(() -> RedisEngine.builder().uri("redis://127.0.0.1:" + port)
        .connectTimeout(Duration.ofMillis(500)).build())
        .isInstanceOf(WindowpaneException.class).hasMessageContaining("127.0.0.1:" + port);
  }

  @Test
  void passwordAndAclUser_areUsed_wrongOnesFailClearly() {
    try (RedisServer redis = RedisServer.startWithPassword("s3cret");
        RespClient admin = redis.client()) {
      try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri())
          .password("s3cret").build())) {
        assertThat(wp.limiter("auth", LIMIT).tryConsume("k", 1)).isTrue();
      }
      String withPassword = "redis://:s3cret@127.0.0.1:" + redis.port() + "/3";
      try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(withPassword).build())) {
        assertThat(wp.limiter("auth", LIMIT).tryAcquire("k", 1).remaining())
            .as("database 3 is another namespace").isEqualTo(9);
      }
      // an ACL user limited to windowpane's keys and the commands it needs
      // (the commands of docs/redis-protocol.md: the calls, and what the functions run inside)
      admin.command("ACL", "SETUSER", "limiter", "on", ">app-pw", "~wp1:*", "+fcall",
          "+function|load", "+evalsha", "+eval", "+time", "+hmget", "+hget", "+hset", "+hdel",
          "+hgetall", "+hincrby", "+del", "+pexpire", "+zadd", "+zrange", "+zrangebyscore",
          "+zremrangebyscore", "+zcount", "+incr");
      ManualClock clock = ManualClock.at(1_700_000_000_000L);
      try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri())
          .username("limiter").password("app-pw").clock(clock).build())) {
        assertThat(wp.limiter("acl", LIMIT).tryConsume("k", 1)).isTrue();
        io.windowpane.LockLease lease = wp.lock("acl-lock").tryLock().orElseThrow();
        assertThat(wp.lock("acl-lock").tryLock()).isEmpty();
        assertThat(lease.release()).isTrue();
        for (StatsSpec spec : List.of(StatsSpec.histogram(Duration.ofSeconds(1), 10),
            StatsSpec.exact(Duration.ofSeconds(1)).withMaxValues(2))) {
          WindowStats stats = wp.stats("acl-" + (spec.isExact() ? "x" : "h"), spec);
          stats.recordAll("k", 1.5, 2.5);
          assertThat(stats.summary("k").sum()).isEqualTo(4);
        }
        assertThatThrownBy(() -> wp.stats("acl-x", StatsSpec.exact(Duration.ofSeconds(1))
            .withMaxValues(2)).record("k", 3)).isInstanceOf(CapacityExceededException.class);
        // every path of the histogram functions: a record in one bucket, panes leaving (their
        // buckets subtracted from the aggregate, one of them to zero), a summary that subtracts
        // a pane left since
        WindowStats histogram = wp.stats("acl-h", StatsSpec.histogram(Duration.ofSeconds(1), 10));
        histogram.record("k", 1.5);
        clock.advance(100);
        histogram.record("k", 2.5);
        clock.advance(900);
        histogram.record("k", 7);
        assertThat(histogram.summary("k").sum()).isEqualTo(9.5);
        clock.advance(100);
        assertThat(histogram.summary("k").sum()).isEqualTo(7);
      }
      assertThatThrownBy(() -> RedisEngine.builder().uri(redis.uri()).password("wrong").build())
          .isInstanceOf(WindowpaneException.class);
      assertThatThrownBy(() -> RedisEngine.builder().uri(redis.uri()).build())
          .isInstanceOf(WindowpaneException.class);
    }
  }

  @Test
  void clusterWithPassword_loadsTheLibraryOnEveryPrimaryAndDecides() {
    try (RedisCluster cluster = RedisCluster.startWithPassword(3, "cl-s3cret")) {
      assertThatThrownBy(() -> RedisEngine.builder()
          .cluster(cluster.seedUris().toArray(new String[0])).build())
          .isInstanceOf(WindowpaneException.class).hasMessageNotContaining("cl-s3cret");
      try (Windowpane wp = Windowpane.using(RedisEngine.builder()
          .cluster(cluster.seedUris().toArray(new String[0])).password("cl-s3cret").build())) {
        RateLimiter limiter = wp.limiter("pw", LIMIT);
        for (int i = 0; i < 30; i++) { // keys on every node
          assertThat(limiter.tryAcquire("k" + i, 4).remaining()).isEqualTo(6);
        }
        for (RedisClusterNode node : cluster.nodes()) {
          try (RespClient c = node.client()) {
            assertThat(c.command("FCALL", "wp_version", "0"))
                .isEqualTo((long) FunctionLibrary.bundled().version());
          }
        }
      }
    }
  }

  @Test
  void badOptions_areRefusedBeforeConnecting() {
    assertThatThrownBy(() -> RedisEngine.builder().uri("http://localhost"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redis://");
    assertThatThrownBy(() -> RedisEngine.builder().timeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    assertThatThrownBy(() -> RedisEngine.builder().database(-1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("database");
    assertThatThrownBy(() -> RedisEngine.builder().expiryGrace(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiryGrace");
    assertThatThrownBy(() -> RedisEngine.builder().build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("uri");
  }
}
