package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.windowpane.Backoff;
import io.windowpane.DistributedLock;
import io.windowpane.LockLease;
import io.windowpane.LockOptions;
import io.windowpane.Windowpane;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import io.windowpane.testkit.lock.LockScenarios;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Locks on a real etcd in real time, with the system clock: mutual exclusion between two engines
 * (separate etcd clients, as separate processes), the fencing token being the key's create
 * revision, the watchdog keeping a lock past its ttl, {@code lost()} when the key is deleted, a
 * holder whose JVM is killed, and a paused holder's stale fencing token refused by the resource
 * it protects.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
@ExtendWith(EtcdServerExtension.class)
class EtcdLocksIT {

  private static final Backoff QUICK = Backoff.fixed(Duration.ofMillis(20));

  private final EtcdServer etcd;

  EtcdLocksIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  /**
   * An engine that has connected: jetcd connects on the first call, which can take longer than
   * the 300 ms ttls below (a lease taken by that call would be over before it is returned).
   */
  private Windowpane client() {
    EtcdEngine engine = EtcdEngine.builder().endpoints(etcd.endpoint())
        .timeout(Duration.ofSeconds(2)).build();
    engine.probe().toCompletableFuture().join();
    return Windowpane.using(engine);
  }

  private KeyValue lockKey(Client admin, String name) throws Exception {
    List<KeyValue> kvs = admin.getKVClient().get(ByteSequence.from("windowpane/lock/" + name,
        StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS).getKvs();
    return kvs.isEmpty() ? null : kvs.get(0);
  }

  @Test
  void mutualExclusion_twoEnginesGuardANonAtomicCounter_endsExact_tokensInOrder() throws Exception {
    int threadsPerEngine = 3;
    int sections = 60;
    LockOptions options = LockOptions.defaults()
        .withBackoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(16)));
    int[] counter = {0}; // plain, non-atomic: only the lock keeps increments apart
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    List<Long> tokens = new ArrayList<>(); // appended inside the critical section only
    ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerEngine);
    try (Windowpane a = client(); Windowpane b = client()) {
      List<Future<?>> done = new ArrayList<>();
      for (Windowpane wp : List.of(a, b)) {
        DistributedLock lock = wp.lock("exclusion", options);
        for (int t = 0; t < threadsPerEngine; t++) {
          done.add(pool.submit(() -> {
            for (int i = 0; i < sections; i++) {
              try (LockLease held = lock.tryLock(Duration.ofMinutes(1)).orElseThrow()) {
                if (inside.incrementAndGet() != 1) {
                  overlaps.incrementAndGet();
                }
                int read = counter[0];
                Thread.yield();
                counter[0] = read + 1;
                tokens.add(held.fencingToken());
                inside.decrementAndGet();
              }
            }
            return null;
          }));
        }
      }
      for (Future<?> f : done) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(overlaps.get()).as("two holders at once").isZero();
    assertThat(counter[0]).isEqualTo(2 * threadsPerEngine * sections);
    for (int i = 1; i < tokens.size(); i++) {
      assertThat(tokens.get(i)).as("token %d, in the order the lock was held", i)
          .isGreaterThan(tokens.get(i - 1));
    }
  }

  @Test
  void fencingToken_isTheLockKeysCreateRevision_andTheKeyIsDeletedOnRelease() throws Exception {
    try (Windowpane wp = client(); Client admin = Client.builder().endpoints(etcd.endpoint())
        .build()) {
      LockLease lease = wp.lock("revision", LockOptions.defaults()).tryLock().orElseThrow();
      KeyValue kv = lockKey(admin, "revision");
      assertThat(kv).isNotNull();
      assertThat(kv.getCreateRevision()).isEqualTo(lease.fencingToken());
      assertThat(kv.getLease()).as("put with a lease: deleted even if nobody releases").isNotZero();
      assertThat(lease.release()).isTrue();
      assertThat(lockKey(admin, "revision")).as("release deletes the key").isNull();
    }
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
      assertThat(lease.release()).isTrue();
      LockLease next = theirs.tryLock().orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
      next.close();
    }
  }

  @Test
  void lost_completesWhenARenewalIsRefused_theKeyWasDeleted() throws Exception {
    try (Windowpane holder = client(); Client admin = Client.builder().endpoints(etcd.endpoint())
        .build()) {
      LockLease lease = holder.lock("deleted", LockOptions.defaults()
          .withTtl(Duration.ofSeconds(3))).tryLock().orElseThrow();
      assertThat(admin.getKVClient().delete(ByteSequence.from("windowpane/lock/deleted",
          StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS).getDeleted()).isEqualTo(1);
      lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS); // the next renewal: 1 s
      assertThat(lease.isHeld()).isFalse();
      assertThat(lease.release()).as("nothing of ours left to free").isFalse();
    }
  }

  @Test
  void holderProcessKilled_theLockIsFreeWithinItsTtl() throws Exception {
    LockScenarios.killedHolder_freesTheLockWithinItsTtl(EtcdLockHolderMain.class,
        etcd.endpoint(), this::client);
  }

  @Test
  void pausedHolder_itsStaleFencingTokenIsRejectedByTheProtectedResource() throws Exception {
    LockScenarios.pausedHolder_itsStaleFencingTokenIsRefused(this::client);
  }
}
