package io.windowpane.internal.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One key's windows (one for a counter, one per limit for a quota) and the time of its last
 * recorded event, which decides when the key expires. {@link #RETIRED} marks a state that was
 * dropped from its table: whoever retires it wins a CAS against every writer touching it, so a
 * write either lands in a live state or is redone on a fresh one.
 */
class KeyState {

  static final long RETIRED = Long.MIN_VALUE;

  private static final VarHandle LAST;

  static {
    try {
      LAST = MethodHandles.lookup().findVarHandle(KeyState.class, "lastEvent", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final Window[] windows;
  @SuppressWarnings("unused") private volatile long lastEvent;

  KeyState(Window[] windows, long now) {
    this.windows = windows;
    this.lastEvent = now;
  }

  long lastEvent() {
    return (long) LAST.getAcquire(this);
  }

  boolean casLastEvent(long expected, long update) {
    return LAST.compareAndSet(this, expected, update);
  }

  /**
   * Records that an event happened at {@code now}; false if the state was retired meanwhile, in
   * which case the caller redoes its operation on a fresh state.
   */
  boolean touch(long now) {
    long last = lastEvent();
    while (last != RETIRED) {
      if (now <= last) {
        return true;
      }
      long witness = (long) LAST.compareAndExchange(this, last, now);
      if (witness == last) {
        return true;
      }
      last = witness;
    }
    return false;
  }

  /**
   * The time this state was created at, where its table keeps it (limiters: a release of a
   * grant older than the state must not take from a later state of the key, e.g. after an
   * eviction); {@link Long#MIN_VALUE} where it is not kept.
   */
  long createdMillis() {
    return Long.MIN_VALUE;
  }

  /** Retires the state if it has been idle for {@code expiryMillis} at {@code now}. */
  boolean retireIfIdle(long now, long expiryMillis) {
    long last = lastEvent();
    return last != RETIRED && now - last >= expiryMillis && casLastEvent(last, RETIRED);
  }
}
