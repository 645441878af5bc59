package io.windowpane.etcd.internal;

import java.util.List;

/**
 * The plain model the stored windows' randomized tests check against: a window as the list of
 * its events, for window kinds 0 (panes of {@code paneMillis}, {@code panes} of them), 1 (a log
 * of {@code w}) and 2 (weighted over fixed windows of {@code w}), with {@code w = paneMillis *
 * panes}. Start instants are epoch-like, before 1970 and far in the future.
 */
final class WindowModel {

  /** Start instants, each on a whole second. */
  static final long[] STARTS = {1_700_000_000_000L, -7_000_000L, 4_000_000_000_000_000L};

  /** An event the model holds: n at time t (negative: a release). */
  record Event(long t, long n) {}

  private WindowModel() {}

  /** Fresh windows of kinds 0, 1 and 2. */
  static WindowState[] windows(long paneMillis, int panes) {
    return new WindowState[] {fresh(0, paneMillis, panes), fresh(1, paneMillis, panes),
        fresh(2, paneMillis, panes)};
  }

  private static WindowState fresh(int i, long paneMillis, int panes) {
    long w = paneMillis * panes;
    return i == 0 ? new PaneState(paneMillis, panes, false)
        : i == 1 ? new LogState(w, LogState.MAX_COUNTER_ENTRIES) : new PaneState(w, 2, true);
  }

  /**
   * Whether window {@code i} still holds time {@code at} at {@code now}, as a replay sees it (a
   * release into a weighted window: while the fixed window of {@code at} still weighs in).
   */
  static boolean holds(int i, long paneMillis, int panes, long w, long now, long at) {
    return i == 0 ? Math.floorDiv(at, paneMillis) > Math.floorDiv(now, paneMillis) - panes
        : now - at < w;
  }

  /** The count of window {@code i} holding {@code events}, at {@code now}. */
  static long count(int i, List<Event> events, long paneMillis, int panes, long w, long now) {
    long sum = 0;
    switch (i) {
      case 0:
        for (Event e : events) {
          if (Math.floorDiv(e.t, paneMillis) > Math.floorDiv(now, paneMillis) - panes) {
            sum += e.n;
          }
        }
        return sum;
      case 1:
        for (Event e : events) {
          if (now - e.t < w) {
            sum += e.n;
          }
        }
        return sum;
      default:
        long pe = Math.floorDiv(now, w);
        long previous = 0;
        for (Event e : events) {
          long q = Math.floorDiv(e.t, w);
          if (q == pe) {
            sum += e.n;
          } else if (q == pe - 1) {
            previous += e.n;
          }
        }
        long left = w - (now - pe * w);
        return sum + (previous * left + w - 1) / w;
    }
  }

  /** Window {@code i} written to its stored form and read back into a fresh one. */
  static WindowState roundTrip(WindowState window, int i, long paneMillis, int panes) {
    Bytes.Writer out = new Bytes.Writer(8);
    window.write(out);
    WindowState back = fresh(i, paneMillis, panes);
    back.read(new Bytes.Reader(out.toByteArray()));
    return back;
  }
}
