package io.windowpane.etcd.internal;

import io.windowpane.LogBuckets;
import io.windowpane.LogHistogram;
import io.windowpane.Summary;
import java.util.ArrayList;
import java.util.List;

/*
 * Design note: a histogram statistics window of one key as the panes still inside it.
 *
 * Each pane (index floorDiv(t, r), epoch-aligned) holds its count, a compensated sum as a
 * (high, low) pair (Neumaier), min, max and the counts of its occupied buckets of the spec's
 * LogBuckets, the same per-pane state as the local engine's stripes, so summaries agree. Panes
 * are kept oldest first and only while inside the window (index > newest - P). A summary merges
 * the live panes: counts and buckets add, sums add as compensated pairs. Stored per pane as the
 * index delta, count, high, low, min, max, then the bucket keys delta-encoded with their
 * counts, so a pane costs about 40 bytes plus 2-4 bytes per occupied bucket. A replay at t
 * records into pane floorDiv(t, r), made in its place in the list if absent, while that pane
 * is still inside the window.
 */
final class HistogramState implements Body {

  private static final class Pane {
    final long id;
    long count;
    double high;
    double low;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    final LogHistogram histogram;

    Pane(long id, LogBuckets buckets) {
      this.id = id;
      this.histogram = new LogHistogram(buckets);
    }

    void add(double v) {
      double s = high + v;
      low += twoSumError(high, v, s);
      high = s;
      count++;
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
  }

  private final long paneMillis;
  private final int panes;
  private final LogBuckets buckets;
  private final List<Pane> live = new ArrayList<>();

  HistogramState(long paneMillis, int panes, LogBuckets buckets) {
    this.paneMillis = paneMillis;
    this.panes = panes;
    this.buckets = buckets;
  }

  static double twoSumError(double a, double b, double s) {
    double bv = s - a;
    double av = s - bv;
    return (a - av) + (b - bv);
  }

  private void trim(long newest) {
    while (!live.isEmpty() && live.get(0).id <= newest - panes) {
      live.remove(0);
    }
  }

  /** Records {@code values} at effective time {@code now}. */
  void record(long now, double[] values) {
    long id = Math.floorDiv(now, paneMillis);
    trim(id);
    Pane pane = live.isEmpty() ? null : live.get(live.size() - 1);
    if (pane == null || pane.id < id) {
      pane = new Pane(id, buckets);
      live.add(pane);
    } // a newer pane than id cannot exist: effective times never go backwards
    for (double v : values) {
      pane.add(v);
      pane.histogram.record(v);
    }
  }

  /**
   * Records {@code values} observed at {@code at <= now} into the pane of {@code at} (a replay);
   * false, having changed nothing, if that pane left the window at {@code now}.
   */
  boolean replay(long now, long at, double[] values) {
    long id = Math.floorDiv(at, paneMillis);
    long newest = Math.floorDiv(now, paneMillis);
    if (id <= newest - panes) {
      return false;
    }
    trim(newest);
    int i = live.size();
    while (i > 0 && live.get(i - 1).id > id) {
      i--;
    }
    Pane pane;
    if (i > 0 && live.get(i - 1).id == id) {
      pane = live.get(i - 1);
    } else {
      pane = new Pane(id, buckets);
      live.add(i, pane);
    }
    for (double v : values) {
      pane.add(v);
      pane.histogram.record(v);
    }
    return true;
  }

  /** The window's statistics at {@code now}. */
  Summary summary(long now) {
    long oldest = Math.floorDiv(now, paneMillis) - panes + 1;
    long count = 0;
    double high = 0;
    double low = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    LogHistogram merged = new LogHistogram(buckets);
    for (Pane p : live) {
      if (p.id < oldest || p.count == 0) {
        continue;
      }
      count += p.count;
      for (double part : new double[] {p.high, p.low}) {
        double s = high + part;
        low += twoSumError(high, part, s);
        high = s;
      }
      min = Math.min(min, p.min);
      max = Math.max(max, p.max);
      merged.merge(p.histogram);
    }
    double sum = high + low;
    if (Double.isNaN(sum)) {
      sum = high;
    }
    return Summary.ofHistogram(count, sum, min, max, merged);
  }

  @Override
  public void write(Bytes.Writer out) {
    out.varint(live.size());
    long previous = 0;
    for (int i = 0; i < live.size(); i++) {
      Pane p = live.get(i);
      if (i == 0) {
        out.zigzag(p.id);
      } else {
        out.varint(p.id - previous);
      }
      previous = p.id;
      out.varint(p.count);
      out.float64(p.high);
      out.float64(p.low);
      out.float64(p.min);
      out.float64(p.max);
      int[] keys = p.histogram.keys();
      out.varint(keys.length);
      int last = 0;
      for (int j = 0; j < keys.length; j++) {
        out.zigzag(j == 0 ? keys[j] : keys[j] - last);
        last = keys[j];
        out.varint(p.histogram.count(keys[j]));
      }
    }
  }

  @Override
  public void read(Bytes.Reader in) {
    live.clear();
    int n = in.count(panes);
    long previous = 0;
    for (int i = 0; i < n; i++) {
      long id = i == 0 ? in.zigzag() : previous + in.varint();
      previous = id;
      Pane p = new Pane(id, buckets);
      p.count = in.varint();
      p.high = in.float64();
      p.low = in.float64();
      p.min = in.float64();
      p.max = in.float64();
      int keys = in.count(2 * buckets.maxKey() + 1);
      int last = 0;
      for (int j = 0; j < keys; j++) {
        int key = (int) (j == 0 ? in.zigzag() : last + in.zigzag());
        last = key;
        p.histogram.add(key, in.varint());
      }
      live.add(p);
    }
  }

  @Override
  public void clear() {
    live.clear();
  }
}
