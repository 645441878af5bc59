package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Backoff;
import io.windowpane.DistributedLock;
import io.windowpane.LockLease;
import io.windowpane.LockOptions;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.testkit.lock.LockScenarios;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Locks on a real redis-server in real time, with the server's clock: the watchdog keeping a
 * lock past its ttl, {@code lost()} when renewal fails, a holder whose process is killed, and a
 * paused holder's stale fencing token refused by the resource it protects. Each test uses its
 * own engines, so holders are separate Redis clients as in separate processes.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
@ExtendWith(RedisServerExtension.class)
class RedisLocksIT {

  private static final Backoff QUICK = Backoff.fixed(Duration.ofMillis(20));

  private final RedisServer redis;

  RedisLocksIT(RedisServer redis) {
    this.redis = redis;
  }

  private Windowpane client() {
    return Windowpane.using(RedisEngine.builder().uri(redis.uri())
        .timeout(Duration.ofMillis(500)).build());
  }

  @Test
  void watchdog_keepsTheLockPastItsTtl_whileTheHolderLives() throws Exception {
    LockOptions options = LockOptions.defaults().withTtl(Duration.ofMillis(300))
        .withBackoff(QUICK);
    try (Windowpane holder = client(); Windowpane other = client()) {
      LockLease lease = holder.lock("watchdog", options).tryLock().orElseThrow();
      DistributedLock theirs = other.lock("watchdog", options);
      assertThat(theirs.tryLock(Duration.ofSeconds(1))).as("1 s of trying: over 3 ttls").isEmpty();
      assertThat(lease.isHeld()).isTrue();
      assertThat(lease.lost().toCompletableFuture()).isNotDone();
      try (RespClient c = redis.client()) {
        long pttl = (Long) c.command("PTTL", "wp1:l:{watchdog}");
        assertThat(pttl).as("renewed to the ttl").isBetween(1L, 300L);
      }
      assertThat(lease.release()).isTrue();
      LockLease next = theirs.tryLock().orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
      next.close();
    }
  }

  @Test
  void lost_completesWhenARenewalIsRefused_theKeyWasDeleted() throws Exception {
    try (Windowpane holder = client(); RespClient admin = redis.client()) {
      LockLease lease = holder.lock("deleted", LockOptions.defaults()
          .withTtl(Duration.ofSeconds(3))).tryLock().orElseThrow();
      assertThat(admin.command("DEL", "wp1:l:{deleted}")).isEqualTo(1L);
      lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS); // the next renewal: 1 s
      assertThat(lease.isHeld()).isFalse();
      assertThat(lease.release()).as("nothing of ours left to free").isFalse();
    }
  }

  @Test
  void lost_completesWhenTheServerStops_withinTheTtl() throws Exception {
    RedisServer own = RedisServer.start();
    try (Windowpane holder = Windowpane.using(RedisEngine.builder().uri(own.uri())
        .timeout(Duration.ofMillis(200)).build())) {
      LockLease lease = holder.lock("stopped", LockOptions.defaults()
          .withTtl(Duration.ofMillis(600))).tryLock().orElseThrow();
      own.close();
      long start = System.nanoTime();
      lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
          .as("by the end of the 600 ms ttl").isLessThan(2_000);
      assertThat(lease.isHeld()).isFalse();
      assertThatThrownBy(lease::release).isInstanceOf(WindowpaneException.class);
      assertThat(lease.release()).as("released once: no second call").isFalse();
    } finally {
      own.close();
    }
  }

  @Test
  void holderProcessKilled_theLockIsFreeWithinItsTtl() throws Exception {
    LockScenarios.killedHolder_freesTheLockWithinItsTtl(LockHolderMain.class, redis.uri(),
        this::client);
  }

  @Test
  void pausedHolder_itsStaleFencingTokenIsRejectedByTheProtectedResource() throws Exception {
    LockScenarios.pausedHolder_itsStaleFencingTokenIsRefused(this::client);
  }
}
