package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** RateLimiter.peek on the local engine: the decision tryAcquire would take, recording nothing. */
class PeekTest {

  private static final long START = 1_000_000_000_003L; // off every pane edge

  private static List<Quota> quotas() {
    return List.of(
        Quota.of(Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10))),
        Quota.of(Limit.of(7, WindowSpec.log(Duration.ofMillis(500)))),
        Quota.of(Limit.of(12, WindowSpec.weighted(Duration.ofSeconds(1)))),
        Quota.of(Limit.of(5, WindowSpec.panes(Duration.ofMillis(200), 4)),
            Limit.of(20, WindowSpec.panes(Duration.ofSeconds(2), 10)),
            Limit.of(30, WindowSpec.log(Duration.ofSeconds(3)))).withTopKeys(4));
  }

  @Test
  void randomTraffic_peekAgreesWithTheNextTryAcquire_andChangesNothing() {
    for (int q = 0; q < quotas().size(); q++) {
      Quota quota = quotas().get(q);
      for (long seed = 1; seed <= 5; seed++) {
        Random random = new Random(seed * 31 + q);
        ManualClock peeked = ManualClock.at(START);
        ManualClock plain = ManualClock.at(START);
        RateLimiter withPeeks = Windowpane.localBuilder().clock(peeked).build()
            .limiter("l", quota);
        RateLimiter without = Windowpane.localBuilder().clock(plain).build()
            .limiter("l", quota);
        for (int step = 0; step < 3_000; step++) {
          long dt = random.nextInt(4) == 0 ? random.nextInt(400) : random.nextInt(5);
          peeked.advance(dt);
          plain.advance(dt);
          String key = "k" + random.nextInt(3);
          long permits = 1 + random.nextInt((int) quota.smallestPermits());
          Decision peek = withPeeks.peek(key, permits).orElseThrow();
          Decision again = withPeeks.peek(key, permits).orElseThrow();
          Decision acquired = withPeeks.tryAcquire(key, permits);
          Decision alone = without.tryAcquire(key, permits);
          assertThat(again).isEqualTo(peek);
          assertThat(peek).as("quota %d seed %d step %d", q, seed, step).isEqualTo(acquired);
          assertThat(acquired).as("peeking changed the decision").isEqualTo(alone);
        }
      }
    }
  }

  @Test
  void atTheBoundary_peekSaysWhatTryAcquireDoes() {
    ManualClock clock = ManualClock.at(START);
    RateLimiter limiter = Windowpane.localBuilder().clock(clock).build().limiter("b",
        Quota.of(Limit.of(3, WindowSpec.panes(Duration.ofSeconds(1), 10)).named("burst"),
            Limit.of(100, WindowSpec.log(Duration.ofMinutes(1)))));
    limiter.tryAcquire("a", 2);
    assertThat(limiter.peek("a").orElseThrow()).isEqualTo(Decision.allowed(0));
    assertThat(limiter.peek("a", 2).orElseThrow().allowed()).isFalse();
    assertThat(limiter.tryAcquire("a")).isEqualTo(Decision.allowed(0));
    Decision peek = limiter.peek("a").orElseThrow();
    assertThat(peek.allowed()).isFalse();
    assertThat(peek.deniedBy().orElseThrow().name()).isEqualTo("burst");
    assertThat(peek.retryAfterMillis()).isPositive();
    assertThat(limiter.tryAcquire("a")).isEqualTo(peek);
    clock.advance(peek.retryAfterMillis() - 1);
    assertThat(limiter.peek("a").orElseThrow().allowed()).isFalse();
    clock.advance(1);
    assertThat(limiter.peek("a").orElseThrow()).isEqualTo(limiter.tryAcquire("a"));
  }

  @Test
  void peekOnAnUnknownKey_createsNoState() {
    RateLimiter limiter = Windowpane.local().limiter("n",
        Limit.of(4, WindowSpec.panes(Duration.ofSeconds(1), 10)));
    assertThat(limiter.peek("ghost", 3)).contains(Decision.allowed(1));
    assertThat(limiter.holdsState("ghost")).isFalse();
  }

  @Test
  void badPeekArguments_throwNamingTheArgument() {
    RateLimiter limiter = Windowpane.local().limiter("bad",
        Limit.of(4, WindowSpec.panes(Duration.ofSeconds(1), 10)));
    assertThatThrownBy(() -> limiter.peek("k", 5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits must be");
    assertThatThrownBy(() -> limiter.peek("", 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThat(limiter.holdsState("k")).isFalse();
  }
}
