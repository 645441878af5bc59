package io.windowpane;

/**
 * How a window counts. See {@code docs/window-model.md} for the exact meaning and error of each.
 */
public enum Algorithm {

  /**
   * Exact: at time {@code t} the count is the number of events with timestamp in
   * {@code (t - W, t]}. Keeps timestamps: memory per key grows with the distinct milliseconds
   * that saw events in the window (for a limit {@code L}, at most {@code L} entries). Retry
   * times are exact to the millisecond.
   */
  SLIDING_LOG,

  /**
   * Panes: the window is cut into {@code P} panes of {@code r = W / P} aligned on the epoch; the
   * count is the sum of the {@code P} most recent panes, the current partial pane included. It
   * sees between {@code W - r} and {@code W} of history: it may miss up to one pane of the oldest
   * events, never counts an event older than {@code W}. Memory O(P) per key.
   */
  SLIDING_PANES,

  /**
   * Weighted: two fixed windows of length {@code W}; the count is
   * {@code current + previous * (1 - elapsed / W)}, rounded up to a whole event. An
   * approximation that assumes the previous window's events were spread evenly. Memory O(1) per
   * key.
   */
  SLIDING_WEIGHTED
}
