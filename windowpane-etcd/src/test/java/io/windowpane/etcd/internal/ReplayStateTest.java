package io.windowpane.etcd.internal;

import static io.windowpane.etcd.internal.WindowModel.STARTS;
import static io.windowpane.etcd.internal.WindowModel.count;
import static io.windowpane.etcd.internal.WindowModel.holds;
import static io.windowpane.etcd.internal.WindowModel.roundTrip;
import static io.windowpane.etcd.internal.WindowModel.windows;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.LogBuckets;
import io.windowpane.WindowSpec;
import io.windowpane.etcd.internal.WindowModel.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Replay arithmetic of the stored windows, in memory: where a replayed event lands, when it
 * leaves, when it is dropped, and how a key remembers replay ids. Every case runs from several
 * start instants (epoch-like, before 1970, far in the future), each on a whole second.
 */
class ReplayStateTest {

  @Test
  void panes_replayLandsInThePaneOfItsTime_andLeavesWithIt() {
    for (long t0 : STARTS) {
      PaneState w = new PaneState(100, 10, false); // W = 1 s, r = 100 ms
      w.add(t0, 1); // pane t0
      w.add(t0 + 550, 1); // pane t0 + 500
      assertThat(w.replay(t0 + 550, t0 + 220, 5)).isTrue(); // pane t0 + 200, behind the head
      assertThat(w.count(t0 + 550)).isEqualTo(7);
      assertThat(w.count(t0 + 1_150)).as("pane t0 left, t0 + 200 still in").isEqualTo(6);
      assertThat(w.count(t0 + 1_250)).as("pane t0 + 200 left").isEqualTo(1);
    }
  }

  @Test
  void panes_replayWhosePaneLeft_isDroppedAndChangesNothing() {
    for (long t0 : STARTS) {
      PaneState w = new PaneState(100, 10, false);
      w.add(t0 + 1_250, 2); // window at t0 + 1250: panes t0 + 300 .. t0 + 1200
      assertThat(w.replay(t0 + 1_250, t0 + 299, 5)).isFalse();
      assertThat(w.replay(t0 + 1_250, t0 + 300, 5)).isTrue(); // oldest pane still held
      assertThat(w.count(t0 + 1_250)).isEqualTo(7);
      assertThat(new PaneState(100, 10, false).replay(t0 + 1_250, t0 + 250, 1))
          .as("an empty window drops it too").isFalse();
    }
  }

  @Test
  void panes_replayNewerThanTheHead_isAnAddAtItsTime() {
    for (long t0 : STARTS) {
      PaneState replayed = new PaneState(100, 10, false);
      PaneState added = new PaneState(100, 10, false);
      replayed.add(t0, 3);
      added.add(t0, 3);
      assertThat(replayed.replay(t0 + 1_000, t0 + 800, 2)).isTrue();
      added.add(t0 + 800, 2);
      for (long now : new long[] {t0 + 1_000, t0 + 1_050, t0 + 1_700, t0 + 1_900}) {
        assertThat(replayed.count(now)).isEqualTo(added.count(now));
        assertThat(replayed.retryAfter(now, 4, 5)).isEqualTo(added.retryAfter(now, 4, 5));
      }
    }
  }

  @Test
  void panes_replayPastALimit_givesTheExactRetryAfter() {
    for (long t0 : STARTS) {
      PaneState w = new PaneState(100, 10, false); // limit 5
      w.add(t0 + 500, 5);
      assertThat(w.replay(t0 + 500, t0 + 100, 3)).isTrue(); // 8 > 5, no room check
      // 4 permits fit once count + 4 <= 5: both panes must leave, the newer at t0 + 1500
      assertThat(w.retryAfter(t0 + 500, 4, 5)).isEqualTo(1_000);
      // 1 permit: the pane of t0 + 100 (3 permits) leaving is not enough (8 - 3 + 1 > 5)
      assertThat(w.retryAfter(t0 + 500, 1, 5)).isEqualTo(1_000);
      assertThat(w.count(t0 + 1_100)).as("pane t0 + 100 left").isEqualTo(5);
    }
  }

  @Test
  void weighted_replayGoesToItsFixedWindow_andOlderThanWIsDropped() {
    for (long t0 : STARTS) {
      PaneState w = new PaneState(1_000, 2, true); // W = 1 s, fixed windows on whole seconds
      w.add(t0 + 1_200, 4); // current window [t0 + 1000, t0 + 2000)
      assertThat(w.replay(t0 + 1_200, t0 + 900, 6)).isTrue(); // previous window
      // 4 + ceil(6 * (1000 - 200) / 1000) = 4 + 5
      assertThat(w.count(t0 + 1_200)).isEqualTo(9);
      assertThat(w.replay(t0 + 1_200, t0 + 200, 5)).as("1,000 ms old: out").isFalse();
      assertThat(w.replay(t0 + 1_200, t0 + 201, 10)).as("999 ms old: in the previous window")
          .isTrue();
      assertThat(w.count(t0 + 1_200)).isEqualTo(4 + 13); // ceil(16 * 0.8)
      assertThat(w.count(t0 + 2_000)).as("the window of t0 left").isEqualTo(4);
    }
  }

  @Test
  void log_replayIsInsertedInTimeOrder_andLeavesExactlyWAfterItsTime() {
    for (long t0 : STARTS) {
      LogState w = new LogState(1_000, LogState.MAX_COUNTER_ENTRIES);
      w.add(t0, 1);
      w.add(t0 + 500, 1);
      assertThat(w.replay(t0 + 500, t0 + 200, 3)).isTrue();
      assertThat(w.replay(t0 + 500, t0 + 500, 2)).isTrue(); // joins the entry of its millisecond
      assertThat(w.count(t0 + 500)).isEqualTo(7);
      assertThat(w.count(t0 + 1_199)).isEqualTo(6);
      assertThat(w.count(t0 + 1_200)).isEqualTo(3);
      assertThat(w.replay(t0 + 1_200, t0 + 200, 1)).as("exactly W old").isFalse();
      assertThat(w.count(t0 + 1_200)).isEqualTo(3);
      Bytes.Writer out = new Bytes.Writer(8);
      w.write(out);
      LogState back = new LogState(1_000, LogState.MAX_COUNTER_ENTRIES);
      back.read(new Bytes.Reader(out.toByteArray()));
      assertThat(back.count(t0 + 1_199)).isEqualTo(6);
    }
  }

  @Test
  void log_fullLimitLog_nextNewerEntryAbsorbsTheReplay_andRetryAfterIsExact() {
    for (long t0 : STARTS) {
      LogState w = new LogState(1_000, 2); // limit 2: at most 2 entries
      w.add(t0, 1);
      w.add(t0 + 500, 1);
      assertThat(w.replay(t0 + 600, t0 + 200, 3)).isTrue(); // stays counted until t0 + 1500
      assertThat(w.count(t0 + 600)).isEqualTo(5);
      // 1 permit fits once 5 - dropped + 1 <= 2: entries t0 (1) and t0 + 500 (4) must leave
      assertThat(w.retryAfter(t0 + 600, 1, 2)).isEqualTo(900);
      assertThat(w.count(t0 + 1_499)).isEqualTo(4);
      assertThat(w.count(t0 + 1_500)).isEqualTo(0);
    }
  }

  @Test
  void histogramAndExact_replayLandsAtItsTime_andOlderThanTheWindowIsDropped() {
    for (long t0 : STARTS) {
      HistogramState h = new HistogramState(100, 10, LogBuckets.defaults());
      h.record(t0 + 550, new double[] {1});
      assertThat(h.replay(t0 + 550, t0 + 220, new double[] {7, 9})).isTrue();
      assertThat(h.replay(t0 + 550, t0 + 50, new double[] {3})).isTrue(); // older than all
      assertThat(h.summary(t0 + 550).count()).isEqualTo(4);
      assertThat(h.summary(t0 + 1_099).max()).isEqualTo(9);
      assertThat(h.summary(t0 + 1_199).count()).as("pane t0 left").isEqualTo(3);
      assertThat(h.summary(t0 + 1_299).count()).as("pane t0 + 200 left").isEqualTo(1);
      assertThat(h.replay(t0 + 1_300, t0 + 399, new double[] {5})).isFalse();

      ExactState x = new ExactState(1_000, 100, 1_500_000, "x");
      x.record(t0 + 500, new double[] {1});
      assertThat(x.replay(t0 + 500, t0 + 100, new double[] {8, 2})).isTrue();
      assertThat(x.replay(t0 + 500, t0 + 300, new double[] {4})).isTrue();
      assertThat(x.summary(t0 + 500).count()).isEqualTo(4);
      assertThat(x.summary(t0 + 1_100).count()).as("the values of t0 + 100 left").isEqualTo(2);
      assertThat(x.summary(t0 + 1_300).max()).isEqualTo(1);
      assertThat(x.replay(t0 + 1_300, t0 + 300, new double[] {4})).isFalse();
      Bytes.Writer out = new Bytes.Writer(8);
      x.write(out);
      ExactState back = new ExactState(1_000, 100, 1_500_000, "x");
      back.read(new Bytes.Reader(out.toByteArray()));
      assertThat(back.summary(t0 + 1_150).sum()).isEqualTo(5);
    }
  }

  /**
   * Adds and replays (at any time of the window, into panes behind the head with empty panes
   * between, into an empty window, past the head) in random order, at non-decreasing times as
   * Doc hands them out, each window checked against the plain list of recorded events after
   * every step and after a round trip through its stored form.
   */
  @Test
  void panesLogAndWeighted_randomAddsAndReplays_countLikeTheListOfTheirEvents() {
    for (long seed = 1; seed <= 200; seed++) {
      Random r = new Random(seed);
      long t0 = STARTS[(int) (seed % STARTS.length)] + r.nextInt(1_000);
      long paneMillis = 1 + r.nextInt(100);
      int panes = 1 + r.nextInt(12);
      long w = paneMillis * panes;
      WindowState[] windows = windows(paneMillis, panes);
      List<List<Event>> held = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
      long now = t0;
      for (int step = 0; step < 300; step++) {
        now += r.nextInt(4) == 0 ? r.nextInt((int) (3 * w)) : r.nextInt((int) paneMillis + 1);
        long n = 1 + r.nextInt(5);
        boolean replay = r.nextBoolean();
        long at = replay ? now - r.nextInt((int) (2 * w)) : now;
        for (int i = 0; i < windows.length; i++) {
          String what = "seed " + seed + " step " + step + " window " + i + " (r " + paneMillis
              + ", P " + panes + ")";
          boolean holds = holds(i, paneMillis, panes, w, now, at);
          if (replay) {
            assertThat(windows[i].replay(now, at, n)).as(what + " replay at now - " + (now - at))
                .isEqualTo(holds);
          } else {
            windows[i].add(now, n);
          }
          if (holds) {
            held.get(i).add(new Event(at, n));
          }
          if (r.nextInt(10) == 0) {
            windows[i] = roundTrip(windows[i], i, paneMillis, panes);
          }
          assertThat(windows[i].count(now)).as(what).isEqualTo(
              count(i, held.get(i), paneMillis, panes, w, now));
        }
      }
    }
  }


  private static final WindowSpec PANES = WindowSpec.panes(Duration.ofSeconds(1), 10);

  @Test
  void doc_remembersReplayIdsInFormat2_andWritesFormat1WithoutThem() {
    Doc doc = new Doc(Windows.forCounter(PANES), PANES.expiryMillis());
    doc.recorded(doc.effective(10_000));
    assertThat(doc.encode(1)[1]).as("no replay: format 1").isEqualTo((byte) 1);
    long id = Doc.replayId("chain-1:42");
    long eff = doc.effective(10_500);
    assertThat(doc.replayed(id, eff)).isFalse();
    doc.rememberReplay(id, eff);
    doc.recorded(eff, 10_200);
    byte[] value = doc.encode(2);
    assertThat(value[1]).isEqualTo((byte) 2);
    Doc back = new Doc(Windows.forCounter(PANES), PANES.expiryMillis()).load(value);
    assertThat(back.replayed(id, back.effective(10_500))).isTrue();
    assertThat(back.replayed(Doc.replayId("chain-1:43"), 10_500)).isFalse();
    assertThat(back.newestNonce()).isEqualTo(2);
    assertThat(back.replayed(id, 10_500 + PANES.expiryMillis() - 1)).isTrue();
    assertThat(back.replayed(id, 10_500 + PANES.expiryMillis())).as("forgotten after W + r")
        .isFalse();
    assertThat(back.encode(3)[1]).as("none left: format 1 again").isEqualTo((byte) 1);
  }

  @Test
  void doc_remembersAtMostMaxReplays_forgettingTheOldestFirst() {
    Doc doc = new Doc(Windows.forCounter(PANES), PANES.expiryMillis());
    for (int i = 0; i <= Doc.MAX_REPLAYS; i++) {
      doc.rememberReplay(Doc.replayId("r" + i), 10_000);
    }
    assertThat(doc.replaysRemembered()).isEqualTo(Doc.MAX_REPLAYS);
    assertThat(doc.replayed(Doc.replayId("r0"), 10_000)).isFalse();
    assertThat(doc.replayed(Doc.replayId("r1"), 10_000)).isTrue();
    assertThat(doc.replayed(Doc.replayId("r" + Doc.MAX_REPLAYS), 10_000)).isTrue();
    doc.recorded(doc.effective(10_000));
    byte[] value = doc.encode(1);
    assertThat(new Doc(Windows.forCounter(PANES), PANES.expiryMillis()).load(value)
        .replaysRemembered()).isEqualTo(Doc.MAX_REPLAYS);
  }

  @Test
  void doc_aReplayOfAnOldEvent_keepsTheKeysTime_andExpiresWPlusRAfterTheNewestEvent() {
    Doc doc = new Doc(Windows.forCounter(PANES), PANES.expiryMillis());
    long eff = doc.effective(5_000);
    doc.recorded(eff, 4_500); // a fresh key takes only a replay of 4,500
    assertThat(doc.effective(4_800)).as("the key's time is the replaying call's").isEqualTo(5_000);
    assertThat(doc.effective(4_500 + PANES.expiryMillis() - 1)).isEqualTo(5_599);
    assertThat(doc.live()).isTrue();
    doc.effective(4_500 + PANES.expiryMillis());
    assertThat(doc.live()).as("expired W + r after the replayed event").isFalse();

    Doc busy = new Doc(Windows.forCounter(PANES), PANES.expiryMillis());
    busy.recorded(busy.effective(5_000));
    busy.recorded(busy.effective(5_000), 4_200);
    busy.effective(5_000 + PANES.expiryMillis() - 1);
    assertThat(busy.live()).as("an older replay does not shorten the key's expiry").isTrue();
  }
}
