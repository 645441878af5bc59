package io.windowpane.etcd.internal;

import io.windowpane.CapacityExceededException;
import io.windowpane.Summary;
import java.util.Arrays;

/*
 * Design note: an exact statistics window of one key as (time, value) pairs in time order,
 * values of the same millisecond grouped under one time. A record first drops the values that
 * left the window (now - time >= W), then refuses the whole batch if it would pass the spec's
 * maxValues or the bytes one etcd value may hold, so a refused record changes nothing. Stored as
 * groups of (time delta, n, n raw doubles): at most MAX_BYTES_PER_VALUE bytes per value. A
 * replay at t inserts its values in time order, after those of t, under the same bounds.
 */
final class ExactState implements Body {

  /** The most one value can cost in the stored layout: 8 for the double, 11 for its group. */
  static final int MAX_BYTES_PER_VALUE = 19;

  private final long windowMillis;
  private final int maxValues;
  private final int maxBytes;
  private final String name;
  private long[] times = new long[16];
  private double[] values = new double[16];
  private int start;
  private int end;

  ExactState(long windowMillis, int maxValues, int maxBytes, String name) {
    this.windowMillis = windowMillis;
    this.maxValues = maxValues;
    this.maxBytes = maxBytes;
    this.name = name;
  }

  private void trim(long now) {
    while (start < end && now - times[start] >= windowMillis) {
      start++;
    }
  }

  /** Records {@code batch} at {@code now}, or throws and records nothing. */
  void record(long now, double[] batch) {
    trim(now);
    put(now, batch);
  }

  /**
   * Records {@code batch} observed at {@code at <= now} in time order (a replay); false, having
   * changed nothing, if {@code at} left the window at {@code now}. Throws like {@link #record}
   * past the bounds, recording nothing.
   */
  boolean replay(long now, long at, double[] batch) {
    if (now - at >= windowMillis) {
      return false;
    }
    trim(now);
    put(at, batch);
    return true;
  }

  /** Inserts {@code batch} at {@code time}, after the values of that time or earlier. */
  private void put(long time, double[] batch) {
    int held = end - start;
    int n = batch.length;
    if (held > maxValues - n) {
      throw new CapacityExceededException("exact window '" + name + "' holds " + held
          + " values for this key and may hold at most " + maxValues + " (maxValues); " + n
          + " more refused, nothing recorded");
    }
    if ((long) (held + n) * MAX_BYTES_PER_VALUE > maxBytes) {
      throw new CapacityExceededException("exact window '" + name + "' holds " + held
          + " values for this key; on etcd one key's window lives in one value of at most "
          + maxBytes + " bytes (" + maxBytes / MAX_BYTES_PER_VALUE + " values); " + n
          + " more refused, nothing recorded");
    }
    if (end + n > times.length) {
      int size = Math.max(16, Integer.highestOneBit(held + n) << 1);
      long[] t = new long[size];
      double[] v = new double[size];
      System.arraycopy(times, start, t, 0, held);
      System.arraycopy(values, start, v, 0, held);
      times = t;
      values = v;
      start = 0;
      end = held;
    }
    int i = end;
    while (i > start && times[i - 1] > time) {
      i--;
    }
    System.arraycopy(times, i, times, i + n, end - i);
    System.arraycopy(values, i, values, i + n, end - i);
    for (double value : batch) {
      times[i] = time;
      values[i++] = value;
    }
    end += n;
  }

  Summary summary(long now) {
    int from = start;
    while (from < end && now - times[from] >= windowMillis) {
      from++;
    }
    return Summary.ofValues(Arrays.copyOfRange(values, from, end));
  }

  @Override
  public void write(Bytes.Writer out) {
    int groups = 0;
    for (int i = start; i < end; i++) {
      if (i == start || times[i] != times[i - 1]) {
        groups++;
      }
    }
    out.varint(groups);
    long previous = 0;
    int i = start;
    boolean first = true;
    while (i < end) {
      int j = i;
      while (j < end && times[j] == times[i]) {
        j++;
      }
      if (first) {
        out.zigzag(times[i]);
        first = false;
      } else {
        out.varint(times[i] - previous);
      }
      previous = times[i];
      out.varint(j - i);
      for (int k = i; k < j; k++) {
        out.float64(values[k]);
      }
      i = j;
    }
  }

  @Override
  public void read(Bytes.Reader in) {
    int groups = in.count(Integer.MAX_VALUE);
    start = 0;
    end = 0;
    long previous = 0;
    for (int g = 0; g < groups; g++) {
      long time = g == 0 ? in.zigzag() : previous + in.varint();
      previous = time;
      int n = in.count(maxValues + 1);
      if (end + n > times.length) {
        int size = Integer.highestOneBit(end + n) << 1;
        times = Arrays.copyOf(times, size);
        values = Arrays.copyOf(values, size);
      }
      for (int k = 0; k < n; k++) {
        times[end] = time;
        values[end++] = in.float64();
      }
    }
  }

  @Override
  public void clear() {
    start = 0;
    end = 0;
  }
}
