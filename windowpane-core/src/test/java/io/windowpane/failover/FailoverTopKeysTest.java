package io.windowpane.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.TopKey;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Peek and top keys through a failover chain: peek is asked of the member that would decide
 * (and stamped like a decision), top keys of the first readable member. Manual clock, no
 * background probes; the primary is a {@link FaultyEngine} over the real local engine.
 */
class FailoverTopKeysTest {

  private static final WindowSpec TEN_SECONDS = WindowSpec.panes(Duration.ofSeconds(10), 10);

  private final ManualClock clock = ManualClock.at(1_700_000_000_000L);
  private final FaultyEngine primary = new FaultyEngine("redis", clock);
  private final Failover chain = Failover.chain(primary,
          Windowpane.localBuilder().clock(clock).buildEngine())
      .clock(clock).background(false).callTimeout(Duration.ofMillis(50)).build();
  private final Windowpane wp = Windowpane.using(chain);

  @AfterEach
  void close() {
    wp.close();
  }

  private static List<String> ranked(List<TopKey> top) {
    return top.stream().map(t -> t.key() + "=" + t.count()).collect(Collectors.toList());
  }

  @Test
  void healthyChain_peekAndTopKeys_comeFromThePrimary() {
    RateLimiter api = wp.limiter("api", Quota.of(Limit.of(10, TEN_SECONDS)).withTopKeys());
    for (int i = 0; i < 3; i++) {
      api.tryAcquire("a");
    }
    api.tryAcquire("b");

    Decision peek = api.peek("a").orElseThrow();
    assertThat(peek.allowed()).isTrue();
    assertThat(peek.remaining()).isEqualTo(10 - 3 - 1); // key a: 3 taken, 1 asked
    assertThat(peek.engine()).contains("redis");
    assertThat(peek.degraded()).isFalse();
    assertThat(ranked(api.top(2).orElseThrow())).containsExactly("a=3", "b=1");

    Decision next = api.tryAcquire("a");
    assertThat(next.remaining()).isEqualTo(peek.remaining()); // peek recorded nothing
  }

  @Test
  void trippedChain_peekIsTheFallbacksDecision_degraded_andTopKeysAreWhatItSaw() {
    RateLimiter api = wp.limiter("api", Quota.of(Limit.of(10, TEN_SECONDS)).withTopKeys());
    api.tryAcquire("a");
    primary.fault = FaultyEngine.Fault.FAIL;
    for (int i = 0; i < 3; i++) {
      assertThat(api.tryAcquire("b").degraded()).isTrue(); // answered by the fallback; trips
    }
    assertThat(chain.degraded()).isTrue();

    Decision peek = api.peek("b").orElseThrow();
    assertThat(peek.degraded()).isTrue();
    assertThat(peek.engine()).isNotEqualTo(java.util.Optional.of("redis"));
    assertThat(peek.remaining()).isEqualTo(api.tryAcquire("b").remaining());
    assertThat(ranked(api.top(5).orElseThrow())).containsExactly("b=4");
  }

  @Test
  void counterTopKeys_passThroughTheChain() {
    WindowCounter hits = wp.counter("hits", TEN_SECONDS.withTopKeys(8));
    hits.add("x", 5);
    hits.add("y", 2);
    assertThat(ranked(hits.top(1).orElseThrow())).containsExactly("x=5");
  }

  @Test
  void limiterWithoutTopKeys_answersEmptyThroughTheChain() {
    RateLimiter api = wp.limiter("plain", Limit.of(10, TEN_SECONDS));
    api.tryAcquire("a");
    assertThat(api.top(3)).isEmpty();
    assertThat(api.peek("a")).isPresent();
  }
}
