package io.windowpane.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import io.windowpane.KeyCreationRefusedException;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.OnFailure;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Batches through a chain whose first member refuses to create keys (a Redis under memory
 * pressure, played by {@link FaultyEngine}): the items on keys it holds are applied there once,
 * only the refused items go to the next member, and the caller gets one answer per item.
 */
class FailoverBatchRefusalTest {

  private static final WindowSpec TEN_SECONDS = WindowSpec.panes(Duration.ofSeconds(10), 10);
  private static final Limit FIVE = Limit.of(5, TEN_SECONDS);

  private final ManualClock clock = ManualClock.at(1_700_000_000_000L);
  private final FaultyEngine primary = new FaultyEngine("redis", clock);

  private Failover.Builder chain(FaultyEngine first, boolean fallback) {
    Failover.Builder b = fallback
        ? Failover.chain(first, Windowpane.localBuilder().clock(clock).buildEngine())
        : Failover.chain(first);
    return b.clock(clock).background(false).callTimeout(Duration.ofMillis(50));
  }

  @Test
  void batchesWithNewKeys_applyExistingItemsOnce_andSendOnlyRefusedItemsToTheNextMember() {
    Failover chain = chain(primary, true).build();
    try (Windowpane wp = Windowpane.using(chain)) {
      WindowCounter c = wp.counter("c", TEN_SECONDS);
      RateLimiter api = wp.limiter("api", FIVE);
      assertThat(c.add("old", 1)).isEqualTo(1);
      assertThat(api.tryAcquire("old", 1).remaining()).isEqualTo(4);
      primary.fault = FaultyEngine.Fault.REFUSE_UNHELD_KEYS;

      assertThat(c.addAll(List.of("old", "new", "old"), 2)).containsExactly(3L, 2L, 5L);
      assertThat(c.addAllAsync(List.of("new", "old"), 1).toCompletableFuture().join())
          .containsExactly(3L, 6L);
      List<Decision> decisions = api.tryAcquireAll(List.of("old", "new"), 2);
      assertThat(decisions.get(0)).satisfies(d -> {
        assertThat(d.remaining()).isEqualTo(2);
        assertThat(d.engine()).contains("redis");
        assertThat(d.degraded()).isFalse();
      });
      assertThat(decisions.get(1)).satisfies(d -> {
        assertThat(d.remaining()).isEqualTo(3);
        assertThat(d.engine()).contains("local");
        assertThat(d.degraded()).isTrue();
      });

      assertThat(chain.status().get(0).health()).as("not a failure: no trip")
          .isEqualTo(Health.UP);
      assertThat(chain.stats().journaledBatches()).as("a replay would create the key").isZero();
      assertThat(c.count("old")).as("on the primary, each item once").isEqualTo(6);
      primary.fault = FaultyEngine.Fault.FAIL; // reads and writes now go to the fallback
      assertThat(c.count("old")).as("the fallback took no item of an existing key").isZero();
      assertThat(c.count("new")).isEqualTo(3);
      assertThat(api.tryAcquire("old", 1).remaining()).isEqualTo(4);
      assertThat(api.tryAcquire("new", 1).remaining()).isEqualTo(2);
    }
  }

  @Test
  void batchesWithNewKeys_withoutAFallback_getTheOnFailureAnswerPerRefusedItem() {
    for (OnFailure policy : OnFailure.values()) {
      FaultyEngine redis = new FaultyEngine("redis", clock);
      try (Windowpane wp = Windowpane.using(chain(redis, false).onFailure(policy).build())) {
        RateLimiter api = wp.limiter("api", FIVE);
        WindowCounter c = wp.counter("c", TEN_SECONDS);
        api.tryAcquire("old", 1);
        c.add("old", 1);
        redis.fault = FaultyEngine.Fault.REFUSE_UNHELD_KEYS;
        if (policy == OnFailure.ERROR) {
          KeyCreationRefusedException e = catchThrowableOfType(
              () -> api.tryAcquireAll(List.of("new", "old"), 1), KeyCreationRefusedException.class);
          assertThat(e.refusedItems()).containsExactly(0);
          assertThat(e.answers().orElseThrow().get(1)).isInstanceOfSatisfying(Decision.class,
              d -> assertThat(d.remaining()).isEqualTo(3));
        } else {
          List<Decision> d = api.tryAcquireAll(List.of("new", "old"), 1);
          assertThat(d.get(0).allowed()).isEqualTo(policy == OnFailure.ALLOW);
          assertThat(d.get(0).engine()).contains("none");
          assertThat(d.get(1).remaining()).isEqualTo(3);
          assertThat(d.get(1).engine()).contains("redis");
        }
        KeyCreationRefusedException e = catchThrowableOfType(
            () -> c.addAll(List.of("old", "new"), 2), KeyCreationRefusedException.class);
        assertThat(e).as("counters have no stand-in answer").isNotNull();
        assertThat(e.answers().orElseThrow()).containsExactly(3L, null);
        assertThat(e.refusedItems()).containsExactly(1);
        assertThat(c.count("old")).as("recorded once, not again").isEqualTo(3);
      }
    }
  }
}
