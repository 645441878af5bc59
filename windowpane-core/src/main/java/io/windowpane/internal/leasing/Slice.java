package io.windowpane.internal.leasing;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/*
 * One lease's grant on this node: the permits it has left to spend, and until when.
 *
 * A grant's unspent permits are one long, `left`, taken by compare-and-swap (lock-free: a CAS
 * fails only because another spend or the close succeeded). Closing swaps in CLOSED (-1), which
 * no request fits, and hands back what was left: every permit of the grant is then either spent
 * by exactly one request or returned by exactly one close, never both.
 *
 * The deadline is this node's clock, conservative: the clock read just before the lease call was
 * sent plus the lease's lifetime measured on the engine's clock from the grant's time (minus
 * 1 ms for the engine clock's truncation), so a request answered from the slice is answered
 * before the pane (fixed window, log lifetime) of the grant ends on the engine.
 */
final class Slice {

  static final long CLOSED = -1;

  /** No lease: expired and closed, so the first request asks the engine. */
  static final Slice NONE = new Slice(0, 0, Long.MIN_VALUE, Long.MIN_VALUE, CLOSED, null, 0,
      null);

  private static final VarHandle LEFT;

  static {
    try {
      LEFT = MethodHandles.lookup().findVarHandle(Slice.class, "left", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final long granted;
  final long atMillis; // the engine's time of the grant
  final long sentMillis; // this node's clock when the lease call was sent
  final long deadline; // this node's clock: answer from the slice only while now < deadline
  final long serverRemaining; // the room the engine reported with the grant
  final String releaseId;
  final io.windowpane.spi.Grant grant; // the engine's grant; null for a plain decision's slice
  private volatile long left;

  private Slice(long granted, long atMillis, long sentMillis, long deadline, long left,
      String releaseId, long serverRemaining, io.windowpane.spi.Grant grant) {
    this.grant = grant;
    this.granted = granted;
    this.atMillis = atMillis;
    this.sentMillis = sentMillis;
    this.deadline = deadline;
    this.serverRemaining = serverRemaining;
    this.releaseId = releaseId;
    this.left = left;
  }

  /** A grant of {@code granted} permits of which {@code left} are unspent. */
  static Slice grant(long granted, long left, long atMillis, long sentMillis, long deadline,
      long serverRemaining, String releaseId, io.windowpane.spi.Grant grant) {
    return new Slice(granted, atMillis, sentMillis, deadline, left, releaseId, serverRemaining,
        grant);
  }

  /** Takes {@code permits}; the permits left after them, or -1 when they do not fit. */
  long take(long permits) {
    for (;;) {
      long v = left;
      if (v < permits) {
        return -1;
      }
      if (LEFT.compareAndSet(this, v, v - permits)) {
        return v - permits;
      }
    }
  }

  /** Closes the slice: no request fits it any more. The permits left unspent (0 or more). */
  long close() {
    if (left == CLOSED) {
      return 0;
    }
    return Math.max(0, (long) LEFT.getAndSet(this, CLOSED));
  }

  /** The unspent permits now, -1 once closed (a snapshot). */
  long left() {
    return left;
  }
}
