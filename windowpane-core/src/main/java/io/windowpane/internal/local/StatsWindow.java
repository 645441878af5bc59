package io.windowpane.internal.local;

import io.windowpane.Summary;

/** One key's statistics window: a {@link HistogramRing} or {@link ExactValues}. Lock-free. */
interface StatsWindow {

  /** Records {@code values} at {@code now}, all or (capacity exceeded) none. */
  void record(long now, double[] values);

  /** Records one value at {@code now}. */
  default void record(long now, double value) {
    record(now, new double[] {value});
  }

  /**
   * Records {@code values} observed at {@code atMillis <= now} where they would have landed in
   * order (the pane, or the log position, of {@code atMillis}), all or none; false, recording
   * nothing, if the window no longer holds that instant at {@code now}.
   */
  boolean recordAt(long now, long atMillis, double[] values);

  /** The statistics of the window at {@code now}; never blocks writers. */
  Summary summary(long now);
}
