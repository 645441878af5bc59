package io.windowpane.etcd.internal;

/*
 * Design note: a release, the unspent permits of a lease given back (see
 * io.windowpane.spi.LimiterStore#releaseAsync for the contract).
 *
 * A release is one more kind of Pending on the key's lane, coalesced with the key's other
 * operations and written by the same compare-and-swap transaction, with the same lost-answer
 * handling. A lease recorded its grant at the key's effective time t (its Grant's atMillis), so
 * the permits sit in the pane, fixed window or log entry of t; each limit's window takes up to n
 * back out of that position, never below 0, if that position still counts at the release's
 * effective time (a pane among the P newest; a weighted window's current or previous fixed
 * window; a log's t > now - W), and is left unchanged otherwise: those permits aged out. t is not capped by the caller's clock as a replay's time is: a lease
 * acts at the key's time, which may be ahead of the releasing process's clock, and the release's
 * effective time is never behind it. A key that expired (or never held state) has nothing to
 * give back and is not written.
 *
 * Idempotence reuses the replay ids remembered in the key's value (see Doc, same bounds: W + r of
 * key time, the 1,024 newest), under the hash of "release/" + id: '/' is not allowed in an id, so
 * a release never shares a hash input with a replay of the same id. A release is remembered when
 * some window still counted t, even if nothing was left there to take, so a resend cannot take
 * permits recorded at t after the first try. One that no window counted is not remembered: time
 * only moves forward, so sent again it is dropped again. The key's logical expiry does not move: a
 * release records no event.
 */
final class Release extends Pending<Void> {

  private final long at;
  private final long permits;
  private final long id;

  /** {@code permits} granted at {@code atMillis}, released under {@code releaseId} at {@code now}. */
  Release(long now, long deadlineNanos, long permits, long atMillis, String releaseId) {
    super(now, deadlineNanos);
    this.at = atMillis;
    this.permits = permits;
    this.id = Doc.replayId("release/" + releaseId);
  }

  @Override
  boolean apply(Doc doc, long eff) {
    if (!doc.live() || at > eff || doc.replayed(id, eff)) {
      return false;
    }
    boolean held = false;
    for (WindowState w : ((Windows) doc.body).windows) {
      held |= w.release(eff, at, permits);
    }
    if (!held) {
      return false;
    }
    doc.rememberReplay(id, eff);
    return true;
  }

  @Override
  long eventTime(long eff) {
    return at; // recorded(eff, at) leaves lastEvent alone: at is no later than the grant's event
  }
}
