package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Engine;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * What tryAcquireAllOrNothing does when the backend fails part-way: the real local engine
 * underneath, with the leases or releases of one limiter switched to fail (as a backend that
 * went down would: a failed stage with a WindowpaneException).
 */
class AllOrNothingFailureTest {

  private final ManualClock clock = ManualClock.at(1_000_000_000_003L);
  private final Switched engine = new Switched(Windowpane.localBuilder().clock(clock)
      .buildEngine());
  private final Windowpane wp = Windowpane.using(engine);
  private final RateLimiter a = wp.limiter("a", Limit.of(5,
      WindowSpec.panes(Duration.ofSeconds(1), 10)));
  private final RateLimiter b = wp.limiter("b", Limit.of(3,
      WindowSpec.panes(Duration.ofSeconds(1), 10)));

  private static long room(RateLimiter limiter, String key) {
    Decision d = limiter.peek(key, 1).orElseThrow();
    return d.allowed() ? d.remaining() + 1 : 0;
  }

  @Test
  void leaseFailsPartWay_theGrantsBeforeAreGivenBack_andTheFailureThrown() {
    engine.failLeasesOf = "b";
    assertThatThrownBy(() -> wp.tryAcquireAllOrNothing(List.of(a.request("u", 2),
        b.request("t", 1)))).isInstanceOf(WindowpaneException.class).hasMessage("b is down");
    assertThat(room(a, "u")).isEqualTo(5);
    assertThatThrownBy(() -> wp.tryAcquireAllOrNothingAsync(List.of(a.request("u", 2),
        b.request("t", 1))).toCompletableFuture().join()).hasCauseInstanceOf(
        WindowpaneException.class);
    assertThat(room(a, "u")).isEqualTo(5);
  }

  @Test
  void releaseFails_theAnswerIsStillTheDenial_andThePermitsStayCounted() {
    b.tryAcquire("t", 3);
    engine.failReleasesOf = "a";
    GroupDecision g = wp.tryAcquireAllOrNothing(List.of(a.request("u", 2), b.request("t", 1)))
        .orElseThrow();
    assertThat(g.allowed()).isFalse();
    assertThat(g.deniedIndex()).hasValue(1);
    assertThat(room(a, "u")).as("conservative: counted until they age out").isEqualTo(3);
    clock.advance(1_000);
    assertThat(room(a, "u")).isEqualTo(5);
  }

  /** The local engine, with the leases or releases of one limiter made to fail. */
  static final class Switched implements Engine {
    private final Engine local;
    volatile String failLeasesOf;
    volatile String failReleasesOf;

    Switched(Engine local) {
      this.local = local;
    }

    @Override
    public String name() {
      return "switched";
    }

    @Override
    public CounterStore counterStore(String name, WindowSpec spec) {
      return local.counterStore(name, spec);
    }

    @Override
    public StatsStore statsStore(String name, StatsSpec spec) {
      return local.statsStore(name, spec);
    }

    @Override
    public void close() {
      local.close();
    }

    @Override
    public LimiterStore limiterStore(String name, Quota quota) {
      LimiterStore store = local.limiterStore(name, quota);
      return new LimiterStore() {
        @Override
        public Decision tryAcquire(String key, long permits) {
          return store.tryAcquire(key, permits);
        }

        @Override
        public boolean holdsState(String key) {
          return store.holdsState(key);
        }

        @Override
        public Optional<Decision> peek(String key, long permits) {
          return store.peek(key, permits);
        }

        @Override
        public CompletionStage<Optional<Grant>> leaseAsync(String key, long min, long max) {
          return name.equals(failLeasesOf)
              ? CompletableFuture.failedFuture(new WindowpaneException(name + " is down"))
              : store.leaseAsync(key, min, max);
        }

        @Override
        public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
            String releaseId) {
          return name.equals(failReleasesOf)
              ? CompletableFuture.failedFuture(new WindowpaneException(name + " is down"))
              : store.releaseAsync(key, permits, atMillis, releaseId);
        }
      };
    }
  }
}
