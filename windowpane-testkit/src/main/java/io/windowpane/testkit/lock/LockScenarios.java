package io.windowpane.testkit.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Backoff;
import io.windowpane.DistributedLock;
import io.windowpane.LockLease;
import io.windowpane.LockOptions;
import io.windowpane.Windowpane;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Lock cases in real time that every engine's lock tests run against their real backend: a
 * holder whose process dies, and a paused holder whose stale fencing token a protected resource
 * refuses. Each engine supplies its clients and a holder main that calls {@link #holdUntilKilled}.
 */
public final class LockScenarios {

  private static final Backoff QUICK = Backoff.fixed(Duration.ofMillis(20));

  private LockScenarios() {}

  /**
   * The body of a holder main in a JVM of its own: takes {@code name} with the watchdog on,
   * prints {@code HELD <fencing token>} and blocks until killed.
   */
  public static void holdUntilKilled(Windowpane wp, String name, long ttlMillis)
      throws InterruptedException {
    LockLease lease = wp.lock(name, LockOptions.defaults()
        .withTtl(Duration.ofMillis(ttlMillis))).tryLock(Duration.ofSeconds(30))
        .orElseThrow(() -> new IllegalStateException("lock not taken within 30 s"));
    System.out.println("HELD " + lease.fencingToken());
    System.out.flush();
    new CountDownLatch(1).await(); // until killed: the watchdog renews meanwhile
  }

  /**
   * Starts {@code holderMain} (arguments: {@code target}, the lock name, the ttl in ms) in a JVM
   * of its own, kills it once it holds the lock, and checks that the lock is free within its
   * 2 s ttl, with a greater fencing token.
   */
  public static void killedHolder_freesTheLockWithinItsTtl(Class<?> holderMain, String target,
      Supplier<Windowpane> client) throws Exception {
    long ttl = 2_000;
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process child = new ProcessBuilder(List.of(java.toString(), "-cp",
        System.getProperty("java.class.path"), holderMain.getName(), target, "killed",
        Long.toString(ttl))).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try (Windowpane other = client.get()) {
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

  /**
   * Holder A stops renewing (a GC pause, a stalled VM) until its ttl passes, B takes the lock and
   * writes, then A writes as if it still held it: the {@link FencedStorage} refuses A.
   */
  public static void pausedHolder_itsStaleFencingTokenIsRefused(Supplier<Windowpane> client)
      throws Exception {
    FencedStorage storage = new FencedStorage();
    LockOptions noWatchdog = LockOptions.defaults().withoutWatchdog()
        .withTtl(Duration.ofMillis(300)).withBackoff(QUICK);
    try (Windowpane a = client.get(); Windowpane b = client.get()) {
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
