package io.windowpane.internal.local;

/**
 * One key's state for one window (of a counter, or of one limit of a quota). Every method takes
 * the operation's time, read once by the caller; implementations are lock-free.
 *
 * <p>A limit decides in two steps so that a quota of several limits stays all-or-nothing:
 * {@link #reserve} checks and takes the permits (or returns {@link #DENIED} and takes nothing),
 * then the caller either {@link #commit}s every reservation or {@link #cancel}s the ones it
 * made. Single-limit quotas commit at once.
 */
abstract class Window {

  /** What {@link #reserve} returns when the permits do not fit. */
  static final long DENIED = Long.MIN_VALUE;

  /** Records {@code n} events at {@code now}; returns the window count including them. */
  abstract long add(long now, long n);

  /**
   * Records {@code n} events at {@code now} without returning the count: a window may then
   * spread a hot key's records over stripes. The default is {@link #add}.
   */
  void record(long now, long n) {
    add(now, n);
  }

  /** What {@link #addAt} returns when the window no longer holds the events' pane. */
  static final long LATE = Long.MIN_VALUE + 1;

  /**
   * Records {@code n} events that happened at {@code atMillis <= now} where they would have
   * landed in order (the pane, fixed window or log position of {@code atMillis}); returns the
   * window count at {@code now} including them, or {@link #LATE} (nothing recorded) if the
   * window no longer holds that instant. Counters only: the default refuses.
   */
  long addAt(long now, long atMillis, long n) {
    throw new UnsupportedOperationException("a limit's window decides now only");
  }

  /** The window count at {@code now}. */
  abstract long count(long now);

  /**
   * Takes {@code permits} if the window holds at most {@code limit - permits} at {@code now};
   * returns a receipt for {@link #commit} / {@link #cancel}, or {@link #DENIED}.
   */
  abstract long reserve(long now, long permits, long limit);

  /** Makes a reservation final. */
  abstract void commit(long now, long permits, long receipt);

  /** Gives a reservation back. */
  abstract void cancel(long now, long permits, long receipt);

  /**
   * Takes up to {@code n} permits back out of where a grant at {@code atMillis} put them (the
   * pane, fixed window or log position of {@code atMillis}) if the window still holds that
   * instant at {@code now}; never leaves a count below 0. Returns the permits taken out. Limits
   * only: a counter's window never gives events back.
   */
  abstract long release(long now, long atMillis, long n);

  /**
   * Milliseconds from {@code now} until a request for {@code permits} would fit if nothing else
   * happened; 0 if it fits now.
   */
  abstract long retryAfter(long now, long permits, long limit);

  /** Permits a request could take at {@code now}. */
  long remaining(long now, long limit) {
    return Math.max(0, limit - count(now));
  }
}
