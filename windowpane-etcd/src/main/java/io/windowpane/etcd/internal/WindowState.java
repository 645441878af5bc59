package io.windowpane.etcd.internal;

/**
 * One window of one key (of a counter, or of one limit of a quota) decoded from its etcd value:
 * plain single-threaded Java, applied to a private copy between a read and a compare-and-swap.
 * Every method takes the operation's effective time, which never precedes a time already
 * applied to the state (see {@link Doc}), so the answers are those of the local engine's
 * windows for a clock that does not step backwards. Only {@link #replay} records events at an
 * earlier time, and {@link #release} takes events back out of one.
 */
abstract class WindowState implements Body {

  /** The window count at {@code now}. */
  abstract long count(long now);

  /** Records {@code n} events at {@code now}. */
  abstract void add(long now, long n);

  /**
   * Records {@code n} events that happened at {@code at <= now} into the position of {@code at}
   * (a replay: {@code at} may precede times already applied, {@code now} may not); returns false,
   * having changed nothing, if the window no longer holds {@code at} at {@code now}. A window
   * whose newest position is older than {@code at} records them as {@link #add} at {@code at}.
   */
  abstract boolean replay(long now, long at, long n);

  /**
   * An event-time add (EventTimeResult's contract): {@link #replay}'s placement, held while the
   * window holds the pane of {@code at} (for a weighted window: while {@code at}'s fixed window
   * is the current or the previous one, as on the other engines); false, having changed
   * nothing, otherwise. The default is {@link #replay}.
   */
  boolean addAt(long now, long at, long n) {
    return replay(now, at, n);
  }

  /**
   * Takes back up to {@code n} events recorded at {@code at <= now} out of the position of
   * {@code at} (a release of a lease's unspent permits, see {@link Release}), never leaving it
   * below 0; returns false, having changed nothing, if the position of {@code at} no longer
   * counts at {@code now} (a pane left the P newest, a weighted window's fixed window is older
   * than the previous one, a log's {@code at <= now - W}). True means it still counts, whether or
   * not anything was left there to take.
   */
  abstract boolean release(long now, long at, long n);

  /**
   * Milliseconds from {@code now} until {@code permits} would fit under {@code limit} if nothing
   * else happened; 0 if they fit now.
   */
  abstract long retryAfter(long now, long permits, long limit);

  /** Whether {@code permits} fit under {@code limit} at {@code now}. */
  boolean fits(long now, long permits, long limit) {
    return count(now) + permits <= limit;
  }

  /** Permits a request could take at {@code now}. */
  long remaining(long now, long limit) {
    return Math.max(0, limit - count(now));
  }

}
