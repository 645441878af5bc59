package io.windowpane.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Backoff;
import io.windowpane.DistributedLock;
import io.windowpane.LockLease;
import io.windowpane.LockOptions;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Conformance of distributed locks: mutual exclusion under contention, a held lock refusing
 * others, compare-token release, fencing tokens strictly increasing across holders and expiry,
 * expiry exactly at the ttl without renewal (by the engine's clock: a {@link ManualClock}),
 * waiting with backoff up to a deadline, async forms, and bad arguments.
 *
 * <p>Leases expire by the engine's clock, which the tests step by hand; waiting between attempts
 * takes real time (the caller really sleeps), which the deadline tests measure with generous
 * upper bounds.
 */
public abstract class LockConformance extends ConformanceBase {

  private static final Duration SECOND = Duration.ofSeconds(1);

  /** Threads contending for one lock in the mutual-exclusion test. */
  protected int threads() {
    return 8;
  }

  /** Critical sections per thread in the mutual-exclusion test. */
  protected int sectionsPerThread() {
    return 200;
  }

  private DistributedLock lock(ManualClock clock, LockOptions options) {
    return engine(clock).lock(uniqueName("lock"), options);
  }

  private static LockLease take(DistributedLock lock) {
    Optional<LockLease> lease = lock.tryLock();
    assertThat(lease).as("%s is free", lock.name()).isPresent();
    return lease.get();
  }

  @Test
  void tryLock_onAFreeLock_returnsAHeldLeaseWithAPositiveFencingToken() {
    DistributedLock lock = lock(ManualClock.at(REALISTIC), LockOptions.defaults());
    LockLease lease = take(lock);
    assertThat(lease.isHeld()).isTrue();
    assertThat(lease.fencingToken()).isPositive();
    assertThat(lease.lock()).isSameAs(lock);
    assertThat(lease.lost().toCompletableFuture()).isNotDone();
    assertThat(lease.release()).isTrue();
  }

  @Test
  void tryLock_onAHeldLock_failsUntilTheHolderReleases() throws Exception {
    DistributedLock lock = lock(ManualClock.at(REALISTIC), LockOptions.defaults());
    LockLease holder = take(lock);
    assertThat(lock.tryLock()).as("not reentrant either").isEmpty();
    assertThat(lock.tryLockAsync().toCompletableFuture().get(10, TimeUnit.SECONDS)).isEmpty();
    assertThat(lock.tryLock(Duration.ZERO)).isEmpty();
    assertThat(holder.isHeld()).as("failed attempts change nothing").isTrue();
    assertThat(holder.release()).isTrue();
    assertThat(holder.isHeld()).isFalse();
    LockLease next = take(lock);
    assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());
    next.close();
  }

  @Test
  void release_isIdempotent_onlyTheFirstCallFreesTheLock() {
    DistributedLock lock = lock(ManualClock.at(REALISTIC), LockOptions.defaults());
    LockLease lease = take(lock);
    assertThat(lease.release()).isTrue();
    assertThat(lease.release()).isFalse();
    lease.close();
    assertThat(lease.releaseAsync().toCompletableFuture().join()).isFalse();
    assertThat(lease.lost().toCompletableFuture()).as("a release is not a loss").isNotDone();
    LockLease other = take(lock);
    assertThat(lease.release()).as("never frees another holder's lock").isFalse();
    assertThat(other.isHeld()).isTrue();
    assertThat(lock.tryLock()).isEmpty();
    other.close();
  }

  @Test
  void lease_withoutWatchdog_expiresExactlyAtTheTtl() {
    for (long t0 : startInstants()) {
      ManualClock clock = ManualClock.at(t0);
      DistributedLock lock = lock(clock, LockOptions.defaults().withoutWatchdog().withTtl(SECOND));
      LockLease lease = take(lock);
      clock.advance(999);
      assertThat(lease.isHeld()).as("from %d", t0).isTrue();
      assertThat(lease.lost().toCompletableFuture()).isNotDone();
      assertThat(lock.tryLock()).as("from %d: 1 ms before the ttl", t0).isEmpty();
      clock.advance(1);
      assertThat(lease.isHeld()).as("from %d: at the ttl", t0).isFalse();
      assertThat(lease.lost().toCompletableFuture()).as("lost at the ttl").isDone();
      LockLease next = take(lock);
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
      assertThat(lease.release()).as("the expired lease frees nothing").isFalse();
      assertThat(next.isHeld()).isTrue();
      assertThat(lock.tryLock()).isEmpty();
      assertThat(next.release()).isTrue();
    }
  }

  @Test
  void staleLease_releaseDoesNothing_theNewHolderKeepsTheLock() {
    ManualClock clock = ManualClock.at(REALISTIC);
    DistributedLock lock = lock(clock, LockOptions.defaults().withoutWatchdog().withTtl(SECOND));
    LockLease stale = take(lock);
    clock.advance(SECOND);
    LockLease current = take(lock);
    assertThat(stale.release()).isFalse();
    stale.close();
    assertThat(lock.tryLock()).as("still held by the current lease").isEmpty();
    assertThat(current.isHeld()).isTrue();
    clock.advance(999);
    assertThat(current.isHeld()).as("its ttl runs from its own start").isTrue();
    assertThat(current.release()).isTrue();
  }

  @Test
  void fencingTokens_increaseStrictly_acrossHoldersReleasesAndExpiry() {
    ManualClock clock = ManualClock.at(REALISTIC);
    Windowpane wp = engine(clock);
    String name = uniqueName("fence");
    DistributedLock expiring = wp.lock(name, LockOptions.defaults().withoutWatchdog()
        .withTtl(Duration.ofMillis(100)));
    List<Long> tokens = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      LockLease lease = take(expiring);
      tokens.add(lease.fencingToken());
      if (i % 3 == 0) {
        clock.advance(100); // expires without release
      } else {
        assertThat(lease.release()).isTrue();
      }
    }
    for (int i = 1; i < tokens.size(); i++) {
      assertThat(tokens.get(i)).as("token %d of %s", i, tokens).isGreaterThan(tokens.get(i - 1));
    }
    DistributedLock other = wp.lock(uniqueName("fence"), LockOptions.defaults());
    LockLease elsewhere = take(other);
    LockLease here = take(expiring);
    assertThat(here.fencingToken()).as("another name's lock does not disturb this one's tokens")
        .isGreaterThan(tokens.get(tokens.size() - 1));
    elsewhere.close();
    here.close();
  }

  @Test
  void distinctNames_areIndependentLocks() {
    Windowpane wp = engine(ManualClock.at(REALISTIC));
    DistributedLock a = wp.lock(uniqueName("a"), LockOptions.defaults());
    DistributedLock b = wp.lock(uniqueName("b"), LockOptions.defaults());
    LockLease holdsA = take(a);
    LockLease holdsB = take(b);
    assertThat(a.tryLock()).isEmpty();
    holdsB.close();
    assertThat(holdsA.isHeld()).isTrue();
    holdsA.close();
  }

  @Test
  void sameNameAndOptions_isTheSameLock_otherOptionsAreRefused() {
    Windowpane wp = engine(ManualClock.at(REALISTIC));
    String name = uniqueName("named");
    DistributedLock lock = wp.lock(name, LockOptions.defaults());
    assertThat(wp.lock(name)).isSameAs(lock);
    assertThat(wp.lock(name, LockOptions.defaults().withTtl(Duration.ofSeconds(10))))
        .isSameAs(lock);
    assertThatThrownBy(() -> wp.lock(name, LockOptions.defaults().withoutWatchdog()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(name);
  }

  @Test
  void tryLockWithWait_onAHeldLock_givesUpAtTheDeadline() throws Exception {
    DistributedLock lock = lock(ManualClock.at(REALISTIC), LockOptions.defaults()
        .withBackoff(Backoff.fixed(Duration.ofMillis(40))));
    LockLease holder = take(lock);
    long start = System.nanoTime();
    assertThat(lock.tryLock(Duration.ofMillis(300))).isEmpty();
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(tookMillis).as("waited until the deadline").isGreaterThanOrEqualTo(300);
    assertThat(tookMillis).as("and not much longer").isLessThan(300 + 3_000);
    start = System.nanoTime();
    assertThat(lock.tryLockAsync(Duration.ofMillis(300)).toCompletableFuture()
        .get(10, TimeUnit.SECONDS)).isEmpty();
    tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(tookMillis).as("async: waited until the deadline").isBetween(300L, 300L + 3_000);
    assertThat(holder.release()).isTrue();
  }

  @Test
  void tryLockWithWait_backoffNeverSleepsPastTheDeadline() throws Exception {
    DistributedLock lock = lock(ManualClock.at(REALISTIC), LockOptions.defaults()
        .withBackoff(Backoff.fixed(Duration.ofMinutes(10))));
    LockLease holder = take(lock);
    long start = System.nanoTime();
    assertThat(lock.tryLock(Duration.ofMillis(200))).isEmpty();
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(tookMillis).as("a 10 min delay cut to the 200 ms left").isBetween(200L, 3_200L);
    holder.close();
  }

  @Test
  void tryLockWithWait_takesTheLockWhenTheHolderReleasesIt() throws Exception {
    DistributedLock lock = lock(ManualClock.at(REALISTIC), LockOptions.defaults()
        .withBackoff(Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(50))));
    LockLease holder = take(lock);
    long start = System.nanoTime();
    CompletableFuture<Optional<LockLease>> waiter =
        lock.tryLockAsync(Duration.ofSeconds(60)).toCompletableFuture();
    assertThat(holder.release()).isTrue();
    Optional<LockLease> taken = waiter.get(30, TimeUnit.SECONDS);
    assertThat(taken).isPresent();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .as("soon after the release, not at the deadline").isLessThan(10_000);
    assertThat(taken.get().fencingToken()).isGreaterThan(holder.fencingToken());
    taken.get().close();
  }

  @Test
  void tryLockWithWait_interrupted_throwsAndHoldsNothing() throws Exception {
    DistributedLock lock = lock(ManualClock.at(REALISTIC), LockOptions.defaults());
    LockLease holder = take(lock);
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(5)))
        .isInstanceOf(InterruptedException.class);
    assertThat(Thread.interrupted()).as("the interrupt was consumed").isFalse();
    assertThat(holder.release()).isTrue();
  }

  @Test
  void mutualExclusion_manyThreadsGuardANonAtomicCounter_endsExact() throws Exception {
    DistributedLock lock = lock(ManualClock.at(REALISTIC), LockOptions.defaults()
        .withBackoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(8))));
    int[] counter = {0}; // plain, non-atomic: only the lock keeps increments apart
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads());
    try {
      long sections = Together.sum(pool, threads(), Duration.ofMinutes(5), () -> {
        long done = 0;
        for (int i = 0; i < sectionsPerThread(); i++) {
          Optional<LockLease> lease = lock.tryLock(Duration.ofMinutes(1));
          if (lease.isEmpty()) {
            throw new AssertionError("no lease within a minute");
          }
          try (LockLease held = lease.get()) {
            if (inside.incrementAndGet() != 1) {
              overlaps.incrementAndGet();
            }
            int read = counter[0];
            Thread.yield(); // widen the window a missing exclusion would fall into
            counter[0] = read + 1;
            inside.decrementAndGet();
          }
          done++;
        }
        return done;
      });
      assertThat(overlaps.get()).as("two holders at once").isZero();
      assertThat(sections).isEqualTo((long) threads() * sectionsPerThread());
      assertThat(counter[0]).isEqualTo(threads() * sectionsPerThread());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void badArguments_areRefusedBeforeAnyCall() throws Exception {
    Windowpane wp = engine(ManualClock.at(REALISTIC));
    assertThatThrownBy(() -> wp.lock("", LockOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name must be 1 to 64");
    assertThatThrownBy(() -> wp.lock("has space")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[A-Za-z0-9_.:-]");
    assertThatThrownBy(() -> wp.lock("x".repeat(65))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> wp.lock("ok", null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("options must not be null");
    LockOptions o = LockOptions.defaults();
    assertThatThrownBy(() -> o.withTtl(Duration.ofMillis(9)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl must be in [10 ms, 86400000 ms], was PT0.009S");
    assertThatThrownBy(() -> o.withTtl(Duration.ofDays(2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl must be in");
    assertThatThrownBy(() -> o.withTtl(Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl must be in");
    assertThatThrownBy(() -> o.withTtl(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl must not be null");
    assertThatThrownBy(() -> o.withBackoff(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("backoff must not be null");
    assertThatThrownBy(() -> Backoff.fixed(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("delay must be in [1 ms, 3600000 ms], was PT0S");
    assertThatThrownBy(() -> Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max must be in [50 ms, 3600000 ms], was PT0.01S");
    assertThatThrownBy(() -> Backoff.exponential(Duration.ofMillis(-1), SECOND))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initial must be in");
    assertThatThrownBy(() -> Backoff.defaults().withJitter(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fraction must be in (0, 1], was 0.0");
    assertThatThrownBy(() -> Backoff.defaults().withJitter(1.5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Backoff.defaults().withJitter(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fraction must be a finite");
    DistributedLock lock = wp.lock(uniqueName("args"));
    assertThatThrownBy(() -> lock.tryLock(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wait must be in [0 ms, 86400000 ms], was PT-0.001S");
    assertThatThrownBy(() -> lock.tryLock(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("wait must not be null");
    assertThatThrownBy(() -> lock.tryLockAsync(Duration.ofDays(2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait must be in");
    LockLease lease = take(lock);
    assertThat(lease.fencingToken()).as("refused calls took nothing").isPositive();
    lease.close();
  }
}
