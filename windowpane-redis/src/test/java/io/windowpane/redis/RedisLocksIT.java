package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Backoff;
import io.windowpane.DistributedLock;
import io.windowpane.LockLease;
import io.windowpane.LockOptions;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.testkit.lock.FencedStorage;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Locks on a real redis-server in real time, with the server's clock: the watchdog keeping a
 * lock past its ttl, {@code lost()} when renewal fails, a holder whose process is killed, and a
 * paused holder's stale fencing token refused by the resource it protects. Each test uses its
 * own engines, so holders are separate Redis clients as in separate processes.
 */
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
    long ttl = 2_000;
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process child = new ProcessBuilder(List.of(java.toString(), "-cp",
        System.getProperty("java.class.path"), LockHolderMain.class.getName(), redis.uri(),
        "killed", Long.toString(ttl))).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try (Windowpane other = client()) {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine(); // blocks until the child holds the lock
      assertThat(line).as("the child took the lock").startsWith("HELD ");
      long childToken = Long.parseLong(line.substring(5));
      DistributedLock lock = other.lock("killed", LockOptions.defaults().withBackoff(QUICK));
      assertThat(lock.tryLock()).as("held by the living child").isEmpty();

      child.destroyForcibly();
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
      long killed = System.nanoTime();
      Optional<LockLease> lease = lock.tryLock(Duration.ofSeconds(10));
      long freeAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
      assertThat(lease).as("free again after the kill").isPresent();
      assertThat(freeAfter).as("within the 2 s ttl (plus polling)").isLessThan(ttl + 1_000);
      assertThat(lease.get().fencingToken()).isGreaterThan(childToken);
      lease.get().close();
    } finally {
      child.destroyForcibly();
    }
  }

  @Test
  void pausedHolder_itsStaleFencingTokenIsRejectedByTheProtectedResource() throws Exception {
    FencedStorage storage = new FencedStorage();
    LockOptions noWatchdog = LockOptions.defaults().withoutWatchdog()
        .withTtl(Duration.ofMillis(300)).withBackoff(QUICK);
    try (Windowpane a = client(); Windowpane b = client()) {
      LockLease first = a.lock("fenced", noWatchdog).tryLock().orElseThrow();
      assertThat(storage.write("A's first write", first.fencingToken())).isTrue();
      // A pauses (a GC pause, a stalled VM): no renewal, the ttl passes
      first.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
      LockLease second = b.lock("fenced", noWatchdog).tryLock(Duration.ofSeconds(5))
          .orElseThrow();
      assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
      assertThat(storage.write("B's write", second.fencingToken())).isTrue();
      // A wakes up and writes as if it still held the lock
      assertThat(storage.write("A's stale write", first.fencingToken()))
          .as("refused: a newer holder has written").isFalse();
      assertThat(storage.value()).isEqualTo("B's write");
      assertThat(first.isHeld()).isFalse();
      assertThat(first.release()).as("A cannot free B's lock").isFalse();
      assertThat(second.release()).isTrue();
    }
  }
}
