package io.windowpane.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Conformance of rate limiters: the limit, remaining, all-or-nothing quotas, exact retryAfter,
 * batch and async forms, and bad input; leases and releases in the nested {@link Leases} group
 * (skipped by capability on an engine that does not lease).
 *
 * <p>retryAfter is exact for all three algorithms: at {@code now + retryAfter} the same request
 * is allowed, one millisecond earlier it is not (if nothing else happened in between).
 */
public abstract class LimiterConformance extends ConformanceBase {

  private static final Duration SECOND = Duration.ofSeconds(1);

  /** Operations per thread of the lease concurrency test; slower engines lower it. */
  protected int leaseOperationsPerThread() {
    return 300;
  }

  /**
   * Whether the nested {@link Leases} group runs (true by default). The group builds its
   * limiters without {@link #underTest}, so a run that differs from the engine's whole suite
   * only there (leasing on) answers false: the group would repeat the whole suite's.
   */
  protected boolean checksLeases() {
    return true;
  }

  /** {@link LeaseConformance} on this engine, with its start instants. */
  @Nested
  class Leases extends LeaseConformance {
    @BeforeEach
    void skipWhereTheWholeSuiteChecksIt() {
      Assumptions.assumeTrue(checksLeases(),
          "this run changes only how limiters are built: the engine's whole suite checks leases");
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return LimiterConformance.this.newEngine(clock);
    }

    @Override
    protected long[] startInstants() {
      return LimiterConformance.this.startInstants();
    }

    @Override
    protected int operationsPerThread() {
      return leaseOperationsPerThread();
    }
  }

  private RateLimiter limiter(ManualClock clock, Limit first, Limit... more) {
    return engine(clock).limiter(uniqueName("limiter"), underTest(Quota.of(first, more), clock));
  }

  private static List<WindowSpec> everyAlgorithm() {
    return List.of(WindowSpec.panes(SECOND, 10), WindowSpec.log(SECOND), WindowSpec.weighted(SECOND));
  }

  @Test
  void tryAcquire_upToTheLimit_allowsAndCountsDownRemaining() {
    for (long t0 : startInstants()) {
      for (WindowSpec spec : everyAlgorithm()) {
        ManualClock clock = ManualClock.at(Math.floorDiv(t0, 1000) * 1000);
        RateLimiter limiter = limiter(clock, Limit.of(5, spec));
        assertThat(limiter.tryAcquire("k", 2)).isEqualTo(Decision.allowed(3));
        assertThat(limiter.tryAcquire("k")).isEqualTo(Decision.allowed(2));
        assertThat(limiter.tryAcquire("k", 2)).as("%s from %d", spec, t0)
            .isEqualTo(Decision.allowed(0));
        Decision denied = limiter.tryAcquire("k");
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.remaining()).isZero();
        assertThat(denied.deniedBy()).contains(limiter.quota().limits().get(0));
        assertThat(denied.retryAfterMillis()).isPositive();
        assertThat(limiter.tryConsume("k", 1)).isFalse();
        assertThat(limiter.tryConsume("other", 5)).isTrue();
      }
    }
  }

  @Test
  void tryAcquire_deniedByTheSecondLimit_recordsNothingInTheFirst() {
    for (long t0 : startInstants()) {
      ManualClock clock = ManualClock.at(Math.floorDiv(t0, 1000) * 1000);
      Limit perTenSeconds = Limit.of(5, WindowSpec.panes(Duration.ofSeconds(10), 10));
      Limit perSecond = Limit.of(4, WindowSpec.panes(SECOND, 10));
      RateLimiter limiter = limiter(clock, perTenSeconds, perSecond);
      assertThat(limiter.tryAcquire("k", 4).allowed()).isTrue();
      Decision denied = limiter.tryAcquire("k", 1);
      assertThat(denied.allowed()).isFalse();
      assertThat(denied.deniedBy()).contains(perSecond);
      assertThat(denied.remaining()).isZero();
      clock.advance(1000);
      // had the denied request been recorded per ten seconds, this one would not fit
      assertThat(limiter.tryAcquire("k", 1)).as("from %d", t0).isEqualTo(Decision.allowed(0));
      Decision byTen = limiter.tryAcquire("k", 1);
      assertThat(byTen.deniedBy()).contains(perTenSeconds);
      assertThat(byTen.retryAfterMillis()).isEqualTo(9000);
    }
  }

  @Test
  void tryAcquire_deniedByTheFirstLimit_recordsNothingInTheSecond() {
    for (long t0 : startInstants()) {
      ManualClock clock = ManualClock.at(Math.floorDiv(t0, 1000) * 1000);
      Limit perSecond = Limit.of(4, WindowSpec.log(SECOND));
      Limit perTenSeconds = Limit.of(6, WindowSpec.weighted(Duration.ofSeconds(10)));
      RateLimiter limiter = limiter(clock, perSecond, perTenSeconds);
      assertThat(limiter.tryAcquire("k", 4).allowed()).isTrue();
      assertThat(limiter.tryAcquire("k", 2).deniedBy()).contains(perSecond);
      assertThat(limiter.tryAcquire("k", 1).deniedBy()).contains(perSecond);
      clock.advance(1000);
      assertThat(limiter.tryAcquire("k", 2)).as("from %d", t0).isEqualTo(Decision.allowed(0));
      assertThat(limiter.tryAcquire("k", 1).deniedBy()).contains(perTenSeconds);
    }
  }

  @Test
  void deniedBy_isTheLimitThatMustWaitLongest() {
    ManualClock clock = ManualClock.at(REALISTIC);
    Limit perSecond = Limit.of(2, WindowSpec.panes(SECOND, 10));
    Limit perMinute = Limit.of(2, WindowSpec.panes(Duration.ofMinutes(1), 60));
    RateLimiter limiter = limiter(clock, perSecond, perMinute);
    limiter.tryAcquire("k", 2);
    Decision denied = limiter.tryAcquire("k", 1);
    assertThat(denied.deniedBy()).contains(perMinute);
    assertThat(denied.retryAfter()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void retryAfter_isExactForEveryAlgorithm() {
    Random random = new Random(20261121);
    for (long t0 : startInstants()) {
      for (WindowSpec spec : List.of(WindowSpec.panes(SECOND, 10), WindowSpec.panes(SECOND, 1),
          WindowSpec.panes(Duration.ofMillis(700), 7), WindowSpec.log(SECOND),
          WindowSpec.log(Duration.ofMillis(1)), WindowSpec.weighted(SECOND),
          WindowSpec.weighted(Duration.ofMillis(3)))) {
        for (int round = 0; round < 20; round++) {
          ManualClock clock = ManualClock.at(t0 + random.nextInt(5000));
          long limit = 1 + random.nextInt(12);
          RateLimiter limiter = limiter(clock, Limit.of(limit, spec));
          // fill the window with a random pattern until a request is denied
          long permits = 1 + random.nextInt((int) limit);
          Decision d;
          int guard = 0;
          while ((d = limiter.tryAcquire("k", permits)).allowed() && guard++ < 1000) {
            clock.advance(random.nextInt((int) Math.max(1, spec.windowMillis() / 3)));
            permits = 1 + random.nextInt((int) limit);
          }
          assertThat(d.allowed()).as("%s never denied", spec).isFalse();
          long now = clock.millis();
          long wait = d.retryAfterMillis();
          assertThat(wait).as("%s limit %d from %d", spec, limit, t0).isPositive();
          clock.set(now + wait - 1);
          Decision early = limiter.tryAcquire("k", permits);
          assertThat(early.allowed())
              .as("%s limit %d permits %d: 1 ms before %d ms", spec, limit, permits, wait)
              .isFalse();
          clock.set(now + wait);
          assertThat(limiter.tryAcquire("k", permits).allowed())
              .as("%s limit %d permits %d: after %d ms", spec, limit, permits, wait).isTrue();
        }
      }
    }
  }

  @Test
  void badInput_isRefusedAndChangesNothing() {
    ManualClock clock = ManualClock.at(REALISTIC);
    RateLimiter limiter = limiter(clock, Limit.of(10, WindowSpec.panes(SECOND, 10)),
        Limit.of(3, WindowSpec.log(SECOND)));
    assertThat(limiter.tryAcquire("k", 1).remaining()).isEqualTo(2);
    assertThatThrownBy(() -> limiter.tryAcquire("k", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits must be in [1, 3], was 0");
    assertThatThrownBy(() -> limiter.tryAcquire("k", -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> limiter.tryAcquire("k", 4))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 4");
    assertThatThrownBy(() -> limiter.tryConsume("k", 11))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> limiter.tryAcquire(null, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> limiter.tryAcquire("", 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> limiter.tryAcquireAsync("k", 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> limiter.tryAcquireAll(List.of("a", "x".repeat(300)), 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(limiter.tryAcquire("a", 1).remaining()).as("batch recorded nothing").isEqualTo(2);
    assertThat(limiter.tryAcquire("k", 1).remaining()).isEqualTo(1);
  }

  @Test
  void batchAndAsyncForms_decideLikeTheSingleForms() throws Exception {
    ManualClock clock = ManualClock.at(REALISTIC);
    RateLimiter limiter = limiter(clock, Limit.of(2, WindowSpec.panes(SECOND, 10)));
    List<Decision> batch = limiter.tryAcquireAll(List.of("a", "b", "a", "a"), 1);
    assertThat(batch).hasSize(4);
    assertThat(batch.get(0)).isEqualTo(Decision.allowed(1));
    assertThat(batch.get(1)).isEqualTo(Decision.allowed(1));
    assertThat(batch.get(2)).isEqualTo(Decision.allowed(0));
    assertThat(batch.get(3).allowed()).isFalse();
    assertThat(batch.get(3).retryAfterMillis()).isEqualTo(1000);
    Decision async = limiter.tryAcquireAsync("b", 1).toCompletableFuture().get();
    assertThat(async).isEqualTo(Decision.allowed(0));
    List<Decision> asyncBatch =
        limiter.tryAcquireAllAsync(List.of("c", "b"), 2).toCompletableFuture().get();
    assertThat(asyncBatch.get(0)).isEqualTo(Decision.allowed(0));
    assertThat(asyncBatch.get(1).allowed()).isFalse();
  }

  @Test
  void idleKey_disappearsWithinTheLongestExpiry() {
    ManualClock clock = ManualClock.at(REALISTIC);
    Limit perSecond = Limit.of(5, WindowSpec.panes(SECOND, 10));
    Limit perMinute = Limit.of(50, WindowSpec.panes(Duration.ofMinutes(1), 6));
    RateLimiter limiter = limiter(clock, perSecond, perMinute);
    limiter.tryAcquire("k", 1);
    clock.advance(perMinute.window().expiryMillis() - 1);
    assertThat(limiter.holdsState("k")).isTrue();
    clock.advance(1);
    limiter.cleanUp();
    assertThat(limiter.holdsState("k")).isFalse();
  }

  @Test
  void deniedRequests_doNotKeepAKeyAlive() {
    ManualClock clock = ManualClock.at(REALISTIC);
    RateLimiter limiter = limiter(clock, Limit.of(1, WindowSpec.log(SECOND)));
    assertThat(limiter.tryAcquire("k").allowed()).isTrue();
    clock.advance(999);
    assertThat(limiter.tryAcquire("k").allowed()).isFalse();
    clock.advance(2);
    limiter.cleanUp();
    assertThat(limiter.holdsState("k")).isFalse();
  }
}
