package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Windowpane.reconfigure on the local engine, with a manual clock: a change of permits keeps
 * every key's counts and applies from the next decision; any other change is refused and
 * changes nothing.
 */
class ReconfigureTest {

  private static final long START = 1_000_000_000_003L; // off every pane edge

  private final ManualClock clock = ManualClock.at(START);
  private final Windowpane wp = Windowpane.localBuilder().clock(clock).build();

  @AfterEach
  void close() {
    wp.close();
  }

  private static Quota quota(long permits, WindowSpec window) {
    return Quota.of(Limit.of(permits, window));
  }

  private static List<WindowSpec> windows() {
    return List.of(WindowSpec.panes(Duration.ofSeconds(1), 10), WindowSpec.log(Duration.ofSeconds(1)),
        WindowSpec.weighted(Duration.ofSeconds(1)));
  }

  @Test
  void loweredPermits_keepTheCounts_andTheNextDecisionIsDeniedUntilTheWindowMoves() {
    for (WindowSpec window : windows()) {
      RateLimiter limiter = wp.limiter("lower-" + window.algorithm(), quota(10, window));
      assertThat(limiter.tryAcquire("k", 6).allowed()).isTrue();
      wp.reconfigure(limiter.name(), quota(5, window));
      Decision d = limiter.tryAcquire("k");
      assertThat(d.allowed()).as("%s: 6 counted, 5 allowed now", window).isFalse();
      assertThat(d.deniedBy().orElseThrow().permits()).isEqualTo(5);
      assertThat(d.remaining()).isZero();
      assertThat(limiter.quota()).isEqualTo(quota(5, window));
      clock.advance(d.retryAfterMillis());
      assertThat(limiter.tryAcquire("k").allowed()).as("%s: after retryAfter", window).isTrue();
    }
  }

  @Test
  void raisedPermits_keepTheCounts_andHaveRoomAtOnce() {
    for (WindowSpec window : windows()) {
      RateLimiter limiter = wp.limiter("raise-" + window.algorithm(), quota(5, window));
      assertThat(limiter.tryAcquire("k", 5).allowed()).isTrue();
      assertThat(limiter.tryAcquire("k").allowed()).isFalse();
      wp.reconfigure(limiter.name(), quota(8, window));
      assertThat(limiter.tryAcquire("k", 2)).isEqualTo(Decision.allowed(1));
      assertThat(limiter.tryAcquire("k", 2).allowed()).isFalse();
      assertThat(limiter.tryAcquire("other", 8).allowed()).as("a new key: 8 permits").isTrue();
    }
  }

  @Test
  void permitsAboveTheNewSmallestLimit_areRefusedAsArguments() {
    RateLimiter limiter = wp.limiter("args", quota(10, windows().get(0)));
    wp.reconfigure("args", quota(4, windows().get(0)));
    assertThatThrownBy(() -> limiter.tryAcquire("k", 5))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[1, 4]");
  }

  @Test
  void theSameName_withTheNewQuota_isTheSameLimiter_andTheOldQuotaIsRefused() {
    WindowSpec w = windows().get(0);
    RateLimiter limiter = wp.limiter("named", quota(10, w));
    assertThat(wp.reconfigure("named", quota(20, w))).isSameAs(limiter);
    assertThat(wp.limiter("named", quota(20, w))).isSameAs(limiter);
    assertThatThrownBy(() -> wp.limiter("named", quota(10, w)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(wp.reconfigure("named", quota(20, w))).as("the same quota: nothing to do")
        .isSameAs(limiter);
  }

  @Test
  void changesBeyondPermits_areRefused_andNothingChanges() {
    WindowSpec second = WindowSpec.panes(Duration.ofSeconds(1), 10);
    Quota two = Quota.of(Limit.of(10, second), Limit.of(100, WindowSpec.log(Duration.ofMinutes(1))));
    RateLimiter limiter = wp.limiter("strict", two);
    limiter.tryAcquire("k", 7);
    List<Quota> refused = List.of(
        Quota.of(Limit.of(10, WindowSpec.panes(Duration.ofSeconds(2), 10)),
            Limit.of(100, WindowSpec.log(Duration.ofMinutes(1)))),
        Quota.of(Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 5)),
            Limit.of(100, WindowSpec.log(Duration.ofMinutes(1)))),
        Quota.of(Limit.of(10, WindowSpec.weighted(Duration.ofSeconds(1))),
            Limit.of(100, WindowSpec.log(Duration.ofMinutes(1)))),
        Quota.of(Limit.of(10, second)),
        Quota.of(Limit.of(100, WindowSpec.log(Duration.ofMinutes(1))), Limit.of(10, second)),
        two.withTopKeys(8),
        two.withLeasing(Leasing.defaults()));
    for (Quota q : refused) {
      assertThatThrownBy(() -> wp.reconfigure("strict", q))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("may change only in its limits' permits");
      assertThat(limiter.quota()).isEqualTo(two);
    }
    assertThat(limiter.tryAcquire("k", 3)).isEqualTo(Decision.allowed(0));
    assertThat(limiter.tryAcquire("k").allowed()).isFalse();
  }

  @Test
  void unknownNames_andNullQuotas_areRefused() {
    wp.counter("a-counter", WindowSpec.panes(Duration.ofSeconds(1), 10));
    Quota q = quota(1, windows().get(0));
    assertThatThrownBy(() -> wp.reconfigure("nothing", q))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must name a limiter");
    assertThatThrownBy(() -> wp.reconfigure("a-counter", q))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must name a limiter");
    wp.limiter("l", q);
    assertThatThrownBy(() -> wp.reconfigure("l", null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("quota");
  }

  @Test
  void renamedLimits_followTheirPermits() {
    WindowSpec w = windows().get(0);
    RateLimiter limiter = wp.limiter("names", Quota.of(Limit.of(2, w).named("burst")));
    limiter.tryAcquire("k", 2);
    wp.reconfigure("names", Quota.of(Limit.of(1, w).named("tight")));
    assertThat(limiter.tryAcquire("k").deniedBy().orElseThrow().name()).isEqualTo("tight");
  }

  @Test
  void topKeys_keepTheirSketches() {
    WindowSpec w = windows().get(0);
    RateLimiter limiter = wp.limiter("top", quota(10, w).withTopKeys(4));
    limiter.tryAcquire("hot", 5);
    wp.reconfigure("top", quota(20, w).withTopKeys(4));
    limiter.tryAcquire("hot", 5);
    assertThat(limiter.top(1).orElseThrow().get(0).count()).isEqualTo(10);
  }

  /**
   * Random traffic on an exact log window whose permits change at random instants, against a
   * model: the permits allowed in (t - W, t] plus the request must fit the permits in force.
   */
  @Test
  void randomPermitChanges_onAnExactLog_agreeWithAModel() {
    WindowSpec log = WindowSpec.log(Duration.ofMillis(500));
    for (long seed = 1; seed <= 20; seed++) {
      Random random = new Random(seed);
      long permits = 1 + random.nextInt(30);
      RateLimiter limiter = wp.limiter("model-" + seed, quota(permits, log));
      Deque<long[]> allowed = new ArrayDeque<>(); // {time, permits}
      for (int step = 0; step < 2_000; step++) {
        long now = clock.advance(random.nextInt(4) == 0 ? random.nextInt(200) : random.nextInt(5));
        if (random.nextInt(50) == 0) {
          permits = 1 + random.nextInt(30);
          wp.reconfigure(limiter.name(), quota(permits, log));
        }
        while (!allowed.isEmpty() && allowed.peekFirst()[0] <= now - 500) {
          allowed.pollFirst();
        }
        long inWindow = allowed.stream().mapToLong(a -> a[1]).sum();
        long n = 1 + random.nextInt((int) Math.min(permits, 3));
        boolean fits = inWindow + n <= permits;
        assertThat(limiter.tryAcquire("k", n).allowed())
            .as("seed %d step %d: %d in the window, %d asked, %d permitted", seed, step,
                inWindow, n, permits).isEqualTo(fits);
        if (fits) {
          allowed.addLast(new long[] {now, n});
        }
      }
    }
  }

  @Test
  void leasing_givesItsSlicesBack_andSizesNewOnesFromTheNewPermits() {
    WindowSpec w = WindowSpec.panes(Duration.ofSeconds(10), 10);
    Leasing leasing = Leasing.defaults().clock(clock);
    RateLimiter limiter = wp.limiter("leased", quota(1_000, w).withLeasing(leasing));
    for (int i = 0; i < 200; i++) {
      assertThat(limiter.tryAcquire("hot").allowed()).isTrue();
      clock.advance(1);
    }
    assertThat(limiter.leaseStats().orElseThrow().leases()).isPositive();
    wp.reconfigure("leased", quota(250, w).withLeasing(leasing));
    long more = 0;
    while (limiter.tryAcquire("hot").allowed()) {
      more++;
    }
    assertThat(more).as("200 taken of 250: the unspent slice came back").isEqualTo(50);
  }
}
