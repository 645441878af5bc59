package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.internal.local.LocalEngine;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Engine;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.LockStore;
import io.windowpane.spi.StatsStore;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The watchdog in real time over the local engine's store, and over a store whose renewals are
 * refused or fail: the lease is kept past its ttl, lost at once on a refusal, lost when the ttl
 * passes while renewals fail.
 */
class LockWatchdogTest {

  /** How the test store answers renewals. */
  enum Renewals { PASS, REFUSE, FAIL }

  /** The local engine, its lock store's renewals steered by the test. */
  static class SteeredEngine implements Engine {
    final LocalEngine local = new LocalEngine(MillisClock.system(), 1000, 1000);
    final AtomicReference<Renewals> renewals = new AtomicReference<>(Renewals.PASS);
    final AtomicInteger renewCalls = new AtomicInteger();
    final LockStore store = new LockStore() {
      final LockStore inner = local.lockStore().orElseThrow();

      @Override
      public MillisClock clock() {
        return inner.clock();
      }

      @Override
      public CompletionStage<OptionalLong> tryAcquire(String name, String token, long ttl) {
        return inner.tryAcquire(name, token, ttl);
      }

      @Override
      public CompletionStage<Boolean> renew(String name, String token, long ttl) {
        renewCalls.incrementAndGet();
        switch (renewals.get()) {
          case REFUSE:
            return CompletableFuture.completedFuture(false);
          case FAIL:
            return CompletableFuture.failedFuture(new WindowpaneTimeoutException("test", null));
          default:
            return inner.renew(name, token, ttl);
        }
      }

      @Override
      public CompletionStage<Boolean> release(String name, String token) {
        return inner.release(name, token);
      }
    };

    @Override
    public String name() {
      return "steered";
    }

    @Override
    public CounterStore counterStore(String name, WindowSpec spec) {
      return local.counterStore(name, spec);
    }

    @Override
    public LimiterStore limiterStore(String name, Quota quota) {
      return local.limiterStore(name, quota);
    }

    @Override
    public StatsStore statsStore(String name, StatsSpec spec) {
      return local.statsStore(name, spec);
    }

    @Override
    public Optional<LockStore> lockStore() {
      return Optional.of(store);
    }

    @Override
    public void close() {}
  }

  @Test
  void watchdog_keepsALeaseHeldPastItsTtl() throws Exception {
    try (Windowpane wp = Windowpane.local()) {
      DistributedLock lock = wp.lock("kept", LockOptions.defaults()
          .withTtl(Duration.ofMillis(500)).withBackoff(Backoff.fixed(Duration.ofMillis(20))));
      LockLease lease = lock.tryLock().orElseThrow();
      // 500 ms: a renewal (every ttl / 3) may be late by 300 ms on a loaded machine; 150 ms was
      // lost there (load 22)
      assertThat(lock.tryLock(Duration.ofSeconds(2))).as("two seconds of trying, 4 ttls")
          .isEmpty();
      assertThat(lease.isHeld()).isTrue();
      assertThat(lease.lost().toCompletableFuture()).isNotDone();
      assertThat(lease.release()).isTrue();
      assertThat(lock.tryLock()).isPresent();
    }
  }

  @Test
  void watchdog_renewalRefused_losesTheLeaseAtOnce() throws Exception {
    SteeredEngine engine = new SteeredEngine();
    try (Windowpane wp = Windowpane.using(engine)) {
      LockLease lease = wp.lock("refused", LockOptions.defaults().withTtl(Duration.ofSeconds(6)))
          .tryLock().orElseThrow();
      engine.renewals.set(Renewals.REFUSE);
      long start = System.nanoTime();
      lease.lost().toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
          .as("at the first renewal (every 2 s), not at the 6 s ttl").isLessThan(5_000);
      assertThat(lease.isHeld()).isFalse();
      assertThat(lease.release()).as("the store still had it: freed").isTrue();
    }
  }

  @Test
  void watchdog_renewalsFailing_losesTheLeaseWhenItsTtlPasses() throws Exception {
    SteeredEngine engine = new SteeredEngine();
    engine.renewals.set(Renewals.FAIL);
    try (Windowpane wp = Windowpane.using(engine)) {
      long start = System.nanoTime();
      LockLease lease = wp.lock("failing", LockOptions.defaults().withTtl(Duration.ofMillis(300)))
          .tryLock().orElseThrow();
      lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      // the lease's expiry is counted on a millisecond clock, so it may end up to 1 ms before
      // 300 ms of nanoTime have passed (seen once: 299)
      assertThat(tookMillis).as("not before the ttl").isGreaterThanOrEqualTo(299);
      assertThat(tookMillis).as("soon after it").isLessThan(3_000);
      assertThat(engine.renewCalls.get()).as("failed renewals were retried").isGreaterThan(1);
      assertThat(lease.isHeld()).isFalse();
      int calls = engine.renewCalls.get();
      engine.renewals.set(Renewals.PASS);
      assertThat(lease.isHeld()).as("a lost lease stays lost").isFalse();
      assertThat(engine.renewCalls.get()).as("and is no longer renewed").isLessThanOrEqualTo(calls + 1);
    }
  }

  @Test
  void leaseWithoutWatchdog_isLostWhenItsTtlPassesInRealTime() throws Exception {
    try (Windowpane wp = Windowpane.local()) {
      LockLease lease = wp.lock("bounded", LockOptions.defaults().withoutWatchdog()
          .withTtl(Duration.ofMillis(100))).tryLock().orElseThrow();
      lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(lease.isHeld()).isFalse();
    }
  }

  @Test
  void engineWithoutLocks_refusesToMakeOne() {
    Engine none = new SteeredEngine() {
      @Override
      public Optional<LockStore> lockStore() {
        return Optional.empty();
      }
    };
    try (Windowpane wp = Windowpane.using(none)) {
      assertThatThrownBy(() -> wp.lock("x")).isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("the steered engine has no distributed locks");
    }
  }
}
