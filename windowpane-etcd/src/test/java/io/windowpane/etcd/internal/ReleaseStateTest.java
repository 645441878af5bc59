package io.windowpane.etcd.internal;

import static io.windowpane.etcd.internal.WindowModel.STARTS;
import static io.windowpane.etcd.internal.WindowModel.count;
import static io.windowpane.etcd.internal.WindowModel.holds;
import static io.windowpane.etcd.internal.WindowModel.roundTrip;
import static io.windowpane.etcd.internal.WindowModel.windows;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.etcd.internal.WindowModel.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Release arithmetic of the stored windows, in memory: a release takes a lease's unspent permits
 * back out of the pane, fixed window or log entry of the grant's time, never below 0, and changes
 * nothing once the window no longer holds that time. Every case runs from several start instants
 * (epoch-like, before 1970, far in the future), each on a whole second.
 */
class ReleaseStateTest {

  @Test
  void panes_releaseTakesFromThePaneOfItsTime_andTheRestLeavesWithIt() {
    for (long t0 : STARTS) {
      PaneState w = new PaneState(100, 10, false); // W = 1 s, r = 100 ms
      w.add(t0 + 220, 8); // a grant of 8 in pane t0 + 200
      w.add(t0 + 550, 1);
      assertThat(w.release(t0 + 600, t0 + 220, 5)).isTrue();
      assertThat(w.count(t0 + 600)).isEqualTo(4);
      assertThat(w.retryAfter(t0 + 600, 6, 10)).as("free again now").isZero();
      assertThat(w.retryAfter(t0 + 600, 7, 10)).as("the 3 kept leave with pane t0 + 200")
          .isEqualTo(600);
      assertThat(w.count(t0 + 1_199)).isEqualTo(4);
      assertThat(w.count(t0 + 1_200)).isEqualTo(1);
    }
  }

  @Test
  void panes_releaseNeverLeavesAPaneBelowZero_norTouchesOtherPanes() {
    for (long t0 : STARTS) {
      PaneState w = new PaneState(100, 10, false);
      w.add(t0 + 100, 2);
      w.add(t0 + 200, 3);
      w.add(t0 + 300, 4);
      assertThat(w.release(t0 + 300, t0 + 250, 10)).isTrue();
      assertThat(w.count(t0 + 300)).isEqualTo(6);
      assertThat(w.release(t0 + 300, t0 + 250, 1)).as("the pane is empty now").isTrue();
      assertThat(w.count(t0 + 300)).isEqualTo(6);
      assertThat(w.count(t0 + 1_100)).as("pane t0 + 100 left").isEqualTo(4);
    }
  }

  @Test
  void panes_releaseWhosePaneLeft_orNewerThanTheHead_changesNothing() {
    for (long t0 : STARTS) {
      PaneState w = new PaneState(100, 10, false);
      w.add(t0 + 299, 1);
      w.add(t0 + 1_250, 2); // window at t0 + 1250: panes t0 + 300 .. t0 + 1200
      assertThat(w.release(t0 + 1_250, t0 + 299, 1)).isFalse();
      assertThat(w.count(t0 + 1_250)).isEqualTo(2);
      w.add(t0 + 300, 1); // lands in the newest pane (t0 + 1200): times never go back
      assertThat(w.release(t0 + 1_350, t0 + 1_300, 1)).as("held, but never written").isTrue();
      assertThat(w.count(t0 + 1_350)).isEqualTo(3);
      assertThat(new PaneState(100, 10, false).release(t0 + 1_250, t0 + 1_250, 1))
          .as("an empty window holds the time, with nothing to take").isTrue();
    }
  }

  @Test
  void weighted_releaseGoesToItsFixedWindow_whileThatStillWeighsIn() {
    for (long t0 : STARTS) {
      PaneState w = new PaneState(1_000, 2, true); // W = 1 s, fixed windows on whole seconds
      w.add(t0 + 100, 10); // previous fixed window, once time is past t0 + 1000
      w.add(t0 + 1_200, 4);
      assertThat(w.release(t0 + 1_200, t0 + 100, 4)).isTrue();
      assertThat(w.count(t0 + 1_200)).as("4 + ceil(6 * 0.8)").isEqualTo(9);
      assertThat(w.release(t0 + 1_700, t0 + 100, 3)).as("1,600 ms old, still weighs in")
          .isTrue();
      assertThat(w.count(t0 + 1_700)).as("4 + ceil(3 * 0.3)").isEqualTo(5);
      assertThat(w.release(t0 + 2_000, t0 + 100, 1)).as("two fixed windows back: out")
          .isFalse();
      assertThat(w.release(t0 + 2_000, t0 + 1_200, 4)).isTrue();
      assertThat(w.count(t0 + 2_000)).isZero();
    }
  }

  @Test
  void log_releaseTakesFromTheEntryOfItsTime_andDropsItOnceEmpty() {
    for (long t0 : STARTS) {
      LogState w = new LogState(1_000, 3); // a limit of 3: at most 3 entries
      w.add(t0, 1);
      w.add(t0 + 100, 1);
      w.add(t0 + 200, 1);
      assertThat(w.release(t0 + 300, t0 + 100, 5)).isTrue();
      assertThat(w.count(t0 + 300)).isEqualTo(2);
      assertThat(w.release(t0 + 300, t0 + 150, 1)).as("no entry of that time").isTrue();
      assertThat(w.count(t0 + 300)).isEqualTo(2);
      // the emptied entry is gone: a new time gets an entry of its own instead of being
      // absorbed by the newest one (which would keep it counted until t0 + 1300)
      w.add(t0 + 300, 1);
      assertThat(w.count(t0 + 1_200)).isEqualTo(1);
      assertThat(w.release(t0 + 1_200, t0 + 200, 1)).as("exactly W old").isFalse();
      assertThat(w.retryAfter(t0 + 1_200, 3, 3)).isEqualTo(100);
    }
  }

  /**
   * Adds (grants), replays and releases in random order, releases mostly at the time of an
   * earlier add, some larger than what is left there, at non-decreasing times as Doc hands them
   * out; each window checked against the plain list of its events after every step and after a
   * round trip through its stored form. A release is modelled as a negative event at its time,
   * of what the position of that time held, at most the released permits.
   */
  @Test
  void panesLogAndWeighted_randomAddsReplaysAndReleases_countLikeTheListOfTheirEvents() {
    for (long seed = 1; seed <= 200; seed++) {
      Random r = new Random(seed);
      long t0 = STARTS[(int) (seed % STARTS.length)] + r.nextInt(1_000);
      long paneMillis = 1 + r.nextInt(100);
      int panes = 1 + r.nextInt(12);
      long w = paneMillis * panes;
      WindowState[] windows = windows(paneMillis, panes);
      List<List<Event>> held = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
      List<Long> grants = new ArrayList<>();
      long now = t0;
      for (int step = 0; step < 300; step++) {
        now += r.nextInt(4) == 0 ? r.nextInt((int) (2 * w)) : r.nextInt((int) paneMillis + 1);
        long n = 1 + r.nextInt(5);
        int kind = r.nextInt(3); // 0 add, 1 replay, 2 release
        long at = kind == 0 ? now : kind == 1 || grants.isEmpty() || r.nextInt(4) == 0
            ? now - r.nextInt((int) (2 * w)) : grants.get(grants.size() - 1 - r.nextInt(
                Math.min(5, grants.size())));
        if (kind == 0) {
          grants.add(now);
        }
        for (int i = 0; i < windows.length; i++) {
          String what = "seed " + seed + " step " + step + " window " + i + " (r " + paneMillis
              + ", P " + panes + ")";
          boolean holds = holds(i, paneMillis, panes, w, now, at);
          boolean counts = i == 2 ? Math.floorDiv(at, w) >= Math.floorDiv(now, w) - 1 : holds;
          List<Event> events = held.get(i);
          if (kind == 2) {
            long take = Math.min(n, position(i, events, paneMillis, w, at));
            assertThat(windows[i].release(now, at, n)).as(what + " release at now - " + (now - at))
                .isEqualTo(counts);
            if (counts) {
              events.add(new Event(at, -take));
            }
          } else {
            if (kind == 1) {
              windows[i].replay(now, at, n);
            } else {
              windows[i].add(now, n);
            }
            if (holds) {
              events.add(new Event(at, n));
            }
          }
          if (r.nextInt(10) == 0) {
            windows[i] = roundTrip(windows[i], i, paneMillis, panes);
          }
          assertThat(windows[i].count(now)).as(what).isEqualTo(
              count(i, events, paneMillis, panes, w, now));
        }
      }
    }
  }

  /** What the position of {@code at} holds: its pane, its log entry, its fixed window. */
  private static long position(int i, List<Event> events, long paneMillis, long w, long at) {
    long sum = 0;
    for (Event e : events) {
      boolean same = i == 0 ? Math.floorDiv(e.t(), paneMillis) == Math.floorDiv(at, paneMillis)
          : i == 1 ? e.t() == at : Math.floorDiv(e.t(), w) == Math.floorDiv(at, w);
      if (same) {
        sum += e.n();
      }
    }
    return sum;
  }
}
