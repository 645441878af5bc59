package io.windowpane.internal.buffering;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Buffering;
import io.windowpane.ManualClock;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.Windowpane;
import io.windowpane.spi.Engine;
import io.windowpane.spi.StatsStore;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A buffering statistics window over the local engine (manual clock, no background flusher): a
 * record is kept on this node until a flush, {@code maxPending} values start one early, a
 * summary on the same node sees every value recorded before it, a batch past the engine's limit
 * goes out in calls of at most 10,000, idle keys are dropped.
 */
class BufferingStatsTest {

  private static final long T0 = 1_700_000_000_000L;
  private static final StatsSpec MINUTE = StatsSpec.exact(Duration.ofMinutes(1));

  private final ManualClock clock = ManualClock.at(T0);
  private final Engine engine = Windowpane.localBuilder().clock(clock).buildEngine();
  private final StatsStore real = engine.statsStore("s", MINUTE);

  private BufferingStatsStore store(int maxPending) {
    return new BufferingStatsStore("s", real,
        Buffering.of(Duration.ofSeconds(1)).maxPending(maxPending).clock(clock), null);
  }

  @Test
  void summary_onTheSameNode_seesItsOwnRecords() {
    BufferingStatsStore store = store(Buffering.MAX_PENDING);
    store.record("k", 1.5);
    store.record("k", new double[] {2.5, 3.0});
    store.recordAsync("k", new double[] {4.0}).toCompletableFuture().join();
    assertThat(real.summary("k").count()).isZero(); // still on this node
    Summary s = store.summary("k");
    assertThat(s.count()).isEqualTo(4);
    assertThat(s.sum()).isEqualTo(11.0);
    store.record("k", 9.0);
    assertThat(store.summaryAsync("k").toCompletableFuture().join().max()).isEqualTo(9.0);
    store.record("j", 1.0);
    List<Summary> all = store.summaryAll(List.of("k", "j"));
    assertThat(all.get(0).count()).isEqualTo(5);
    assertThat(all.get(1).count()).isEqualTo(1);
    assertThat(store.stats().flushedEvents()).isEqualTo(6);
    assertThat(store.stats().localAnswers()).isEqualTo(5); // record calls
    assertThat(store.stats().engineAnswers()).isEqualTo(3);
  }

  @Test
  void maxPending_startsAnEarlyFlush() {
    BufferingStatsStore store = store(3);
    store.record("k", 1.0);
    store.record("k", 2.0);
    assertThat(real.summary("k").count()).isZero();
    store.record("k", 3.0);
    assertThat(real.summary("k").count()).isEqualTo(3);
    assertThat(store.stats().flushes()).isEqualTo(1);
  }

  @Test
  void aBatchPastTheEngineLimit_goesOutInCallsOfAtMost10000() {
    BufferingStatsStore store = store(Buffering.MAX_PENDING);
    store.record("k", new double[9_999]);
    store.record("k", new double[10_000]); // 19,999 pending: two calls
    assertThat(store.stats().flushes()).isEqualTo(2);
    assertThat(real.summary("k").count()).isEqualTo(19_999);
  }

  @Test
  void flushRound_sendsEveryKey_andDropsIdleOnes() {
    BufferingStatsStore store = store(Buffering.MAX_PENDING);
    for (int i = 0; i < 50; i++) {
      store.record("k" + i, i);
    }
    store.flushRound();
    assertThat(store.keys()).isEqualTo(50);
    for (int i = 0; i < 50; i++) {
      assertThat(real.summary("k" + i).count()).isEqualTo(1);
    }
    clock.advance(1_001);
    store.flushRound();
    assertThat(store.keys()).isZero();
  }
}
