package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.CapacityExceededException;
import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Replay on a real etcd ({@code replayAsync} of the SPI, what a failover chain sends a recovered
 * engine): events land in the pane or log position of their own time, leave the window with it,
 * are dropped once no window holds that time, count once per replay id (also when resent through
 * another engine), and a limiter takes them past its limit, then denies with the exact
 * retryAfter; statistics windows likewise. The clock is manual and starts on a whole minute
 * ({@link WholeMinuteFixture}).
 */
@ExtendWith(EtcdServerExtension.class)
class EtcdReplayIT extends WholeMinuteFixture {

  EtcdReplayIT(EtcdServer etcd) {
    super(etcd, "replay");
  }

  private void replay(CounterStore store, String key, long n, long offsetMillis, String id)
      throws Exception {
    assertThat(await(store.replayAsync(key, n, t0 + offsetMillis, id))).isNull();
  }

  @Test
  void engine_takesReplays() {
    assertThat(engine.replays()).isTrue();
  }

  @Test
  void panes_replayedAdd_landsInThePaneOfItsTime_andLeavesWithIt_whileAnAddOfNowStays()
      throws Exception {
    CounterStore c = engine.counterStore(name, WindowSpec.panes(TEN_SECONDS, 10));
    at(8_000);
    assertThat(c.add("k", 1)).isEqualTo(1);
    replay(c, "k", 5, 2_500, "r1"); // pane 2, behind the key's newest pane (8)
    assertThat(c.count("k")).isEqualTo(6);
    at(11_999); // window: panes 2 .. 11
    assertThat(c.count("k")).isEqualTo(6);
    at(12_000); // window: panes 3 .. 12
    assertThat(c.count("k")).as("the replayed pane left, the add of 8 s stays").isEqualTo(1);
    at(17_999);
    assertThat(c.count("k")).isEqualTo(1);
    at(18_000);
    assertThat(c.count("k")).isEqualTo(0);
  }

  @Test
  void panes_replayWhosePaneLeftTheWindow_isDropped_andCompletesNormally() throws Exception {
    CounterStore c = engine.counterStore(name, WindowSpec.panes(TEN_SECONDS, 10));
    at(12_500);
    c.add("k", 2);
    replay(c, "k", 5, 2_999, "old"); // pane 2: the window holds panes 3 .. 12
    assertThat(c.count("k")).isEqualTo(2);
    replay(c, "k", 5, 3_000, "oldest-held");
    assertThat(c.count("k")).isEqualTo(7);
    replay(c, "fresh", 5, 2_000, "nothing-holds-it");
    assertThat(c.holdsState("fresh")).as("a dropped replay writes nothing").isFalse();
  }

  @Test
  void panes_replayNewerThanTheKeysHead_isAnAddAtItsTime_andAFutureTimeIsTakenAsNow()
      throws Exception {
    CounterStore c = engine.counterStore(name, WindowSpec.panes(TEN_SECONDS, 10));
    at(1_000);
    c.add("k", 1);
    at(9_000);
    replay(c, "k", 2, 7_000, "r1"); // head pane 1 -> 7
    replay(c, "k", 4, 60_000, "r2"); // later than now: at 9 s, pane 9
    assertThat(c.count("k")).isEqualTo(7);
    at(11_000);
    assertThat(c.count("k")).as("pane 1 left").isEqualTo(6);
    at(17_000);
    assertThat(c.count("k")).as("pane 7 left").isEqualTo(4);
    at(19_000);
    assertThat(c.count("k")).as("pane 9 left").isEqualTo(0);
  }

  @Test
  void sameReplayId_countsOnce_sequentially_concurrently_andThroughAnotherEngine()
      throws Exception {
    CounterStore c = engine.counterStore(name, WindowSpec.panes(TEN_SECONDS, 10));
    at(5_000);
    replay(c, "k", 3, 4_000, "batch-1");
    replay(c, "k", 3, 4_000, "batch-1");
    assertThat(c.count("k")).isEqualTo(3);
    List<CompletableFuture<Void>> together = new ArrayList<>();
    for (int i = 0; i < 8; i++) { // likely one transaction: the lane coalesces them
      together.add(c.replayAsync("k", 2, t0 + 4_500, "batch-2").toCompletableFuture());
    }
    for (CompletableFuture<Void> f : together) {
      await(f);
    }
    assertThat(c.count("k")).isEqualTo(5);
    CounterStore other = open(ManualClock.at(t0 + 5_000)).counterStore(name,
        WindowSpec.panes(TEN_SECONDS, 10));
    replay(other, "k", 3, 4_000, "batch-1");
    assertThat(other.count("k")).as("ids live in etcd, not in one process").isEqualTo(5);
    replay(other, "k", 3, 4_000, "batch-3");
    assertThat(c.count("k")).as("another id counts").isEqualTo(8);
    at(10_000 + 999); // still within the key's expiry of batch-1's landing
    replay(c, "k", 3, 4_000, "batch-1");
    assertThat(c.count("k")).isEqualTo(8);
  }

  @Test
  void log_replayLeavesExactlyWAfterItsTime_andOlderIsDropped() throws Exception {
    CounterStore c = engine.counterStore(name, WindowSpec.log(TEN_SECONDS));
    at(9_000);
    c.add("k", 1);
    replay(c, "k", 4, 3_000, "r1");
    replay(c, "k", 2, 3_000, "r2"); // joins the entry of that millisecond
    replay(c, "k", 1, 8_999, "r3");
    assertThat(c.count("k")).isEqualTo(8);
    at(12_999);
    assertThat(c.count("k")).isEqualTo(8);
    at(13_000);
    assertThat(c.count("k")).as("(t - W, t] no longer holds 3 s").isEqualTo(2);
    replay(c, "k", 5, 3_000, "r4");
    assertThat(c.count("k")).as("exactly W old: dropped").isEqualTo(2);
    at(18_999);
    assertThat(c.count("k")).isEqualTo(1);
    at(19_000);
    assertThat(c.count("k")).isEqualTo(0);
  }

  @Test
  void weighted_replayGoesToTheFixedWindowOfItsTime() throws Exception {
    CounterStore c = engine.counterStore(name, WindowSpec.weighted(TEN_SECONDS));
    at(12_000); // current fixed window [10 s, 20 s)
    c.add("k", 4);
    replay(c, "k", 6, 9_000, "prev"); // previous fixed window [0, 10 s)
    // 4 + ceil(6 * (10,000 - 2,000) / 10,000) = 4 + 5
    assertThat(c.count("k")).isEqualTo(9);
    replay(c, "k", 100, 2_000, "too-old"); // 10 s old: dropped
    assertThat(c.count("k")).isEqualTo(9);
    replay(c, "k", 10, 15_000, "current"); // later than now: at 12 s, current window
    assertThat(c.count("k")).isEqualTo(19);
    at(20_000);
    assertThat(c.count("k")).as("the replay into [0, 10 s) no longer counts").isEqualTo(14);
  }

  @Test
  void limiter_replayPastItsLimit_thenTryAcquireIsDeniedWithTheExactRetryAfter()
      throws Exception {
    Limit perTenSeconds = Limit.of(5, WindowSpec.panes(TEN_SECONDS, 10));
    Limit perMinute = Limit.of(8, WindowSpec.log(Duration.ofMinutes(1)));
    LimiterStore l = engine.limiterStore(name, Quota.of(perTenSeconds, perMinute));
    at(4_000);
    assertThat(await(l.replayAsync("k", 7, t0 + 2_500, "r1"))).isNull(); // past 5: no check
    assertThat(await(l.replayAsync("k", 7, t0 + 2_500, "r1"))).isNull();
    Decision d = l.tryAcquire("k", 1);
    assertThat(d.allowed()).isFalse();
    assertThat(d.deniedBy()).contains(perTenSeconds);
    assertThat(d.remaining()).isZero();
    assertThat(d.retryAfterMillis()).as("pane 2 leaves at 12 s").isEqualTo(8_000);
    at(11_999);
    assertThat(l.tryAcquire("k", 1).retryAfterMillis()).isEqualTo(1);
    at(12_000);
    assertThat(l.tryAcquire("k", 1).allowed()).isTrue(); // per minute: 7 + 1 = 8
    d = l.tryAcquire("k", 1);
    assertThat(d.allowed()).isFalse();
    assertThat(d.deniedBy()).contains(perMinute);
    assertThat(d.retryAfterMillis()).as("the replayed 7 leave at 62.5 s").isEqualTo(50_500);
    at(62_500);
    assertThat(l.tryAcquire("k", 5).allowed()).isTrue();
  }

  @Test
  void limiter_replayIsRecordedInTheLimitsThatStillHoldItsTime() throws Exception {
    Limit perTenSeconds = Limit.of(5, WindowSpec.panes(TEN_SECONDS, 10));
    Limit perMinute = Limit.of(8, WindowSpec.log(Duration.ofMinutes(1)));
    LimiterStore l = engine.limiterStore(name, Quota.of(perTenSeconds, perMinute));
    at(30_000);
    assertThat(await(l.replayAsync("k", 6, t0 + 5_000, "r1"))).isNull(); // 25 s ago
    Decision d = l.tryAcquire("k", 3);
    assertThat(d.allowed()).as("only the minute limit holds 5 s").isFalse();
    assertThat(d.deniedBy()).contains(perMinute);
    assertThat(d.retryAfterMillis()).isEqualTo(35_000);
    assertThat(l.tryAcquire("k", 2).allowed()).isTrue();
  }

  @Test
  void histogram_replayedValuesLandInThePaneOfTheirTime_countOnce_andLeaveWithIt()
      throws Exception {
    StatsStore st = engine.statsStore(name, StatsSpec.histogram(TEN_SECONDS, 10));
    at(8_000);
    st.record("k", 1);
    for (int i = 0; i < 2; i++) {
      assertThat(await(st.replayAsync("k", new double[] {7, 9}, t0 + 2_500, "h1"))).isNull();
    }
    Summary s = st.summary("k");
    assertThat(s.count()).isEqualTo(3);
    assertThat(s.max()).isEqualTo(9);
    assertThat(s.sum()).isEqualTo(17);
    at(12_000); // window: panes 3 .. 12
    assertThat(st.summary("k").count()).as("pane 2 left, the record of 8 s stays").isEqualTo(1);
    assertThat(st.summary("k").max()).isEqualTo(1);
    assertThat(await(st.replayAsync("k", new double[] {5}, t0 + 2_999, "h2"))).isNull();
    assertThat(st.summary("k").count()).as("pane 2: dropped").isEqualTo(1);
  }

  @Test
  void exact_replayedValuesLeaveExactlyWAfterTheirTime_andCountOnce() throws Exception {
    StatsStore st = engine.statsStore(name, StatsSpec.exact(TEN_SECONDS));
    at(9_000);
    st.record("k", 1);
    for (int i = 0; i < 2; i++) {
      assertThat(await(st.replayAsync("k", new double[] {8, 2}, t0 + 3_000, "x1"))).isNull();
    }
    Summary s = st.summary("k");
    assertThat(s.count()).isEqualTo(3);
    assertThat(s.sum()).isEqualTo(11);
    assertThat(s.quantile(0.5)).isEqualTo(2);
    at(12_999);
    assertThat(st.summary("k").count()).isEqualTo(3);
    at(13_000);
    assertThat(st.summary("k").count()).isEqualTo(1);
    assertThat(await(st.replayAsync("k", new double[] {4}, t0 + 3_000, "x2"))).isNull();
    assertThat(st.summary("k").count()).as("exactly W old: dropped").isEqualTo(1);
  }

  @Test
  void exact_replayPastMaxValues_isRefusedWhole_andRecordsNothing() throws Exception {
    StatsStore st = engine.statsStore(name, StatsSpec.exact(TEN_SECONDS).withMaxValues(3));
    at(5_000);
    st.record("k", new double[] {1, 2});
    assertThatThrownBy(() -> await(st.replayAsync("k", new double[] {3, 4}, t0 + 4_000, "big")))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(CapacityExceededException.class);
    assertThat(st.summary("k").count()).isEqualTo(2);
    assertThat(await(st.replayAsync("k", new double[] {3}, t0 + 4_000, "big"))).isNull();
    assertThat(st.summary("k").count()).as("a refused replay is not remembered").isEqualTo(3);
  }
}
