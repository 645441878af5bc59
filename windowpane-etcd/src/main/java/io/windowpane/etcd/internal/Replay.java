package io.windowpane.etcd.internal;

/*
 * Design note: a replayed operation, the events a failover chain's fallback took while this
 * engine was down (see io.windowpane.spi.Engine#replays for the contract).
 *
 * A replay is one more kind of Pending on the key's lane, so it is coalesced with the key's other
 * operations and lands through the same compare-and-swap transaction, with the same lost-answer
 * handling (a write is never applied twice). Many replays of one store in one call
 * (replayAllAsync) are decided the same way, per key in call order, by a ReplayChunk: one
 * transaction for the keys of many replays. It happened at t = min(atMillis, the caller's clock
 * reading), which may lie behind the key's time: each window records it into the position of t
 * (its pane, its log entry) if the window, at the operation's effective time, still holds t, and
 * drops it otherwise (the future completes normally either way). A window whose newest position
 * is older than t records it as an add at t would. Limits get no room check: another engine
 * already allowed these permits.
 *
 * Idempotence: a replay that recorded something is remembered in the key's value by a hash of
 * its id (see Doc for the bounds); a replay whose id the key remembers records nothing. A replay
 * that recorded nothing is not remembered: time only moves forward, so sent again it is dropped
 * again, unless its first try acted on a clock far behind the key's time (t capped by that clock
 * fell out of the window while atMillis had not); then it lands once, later.
 */
abstract class Replay extends Pending<Void> {

  private final long at;
  private final long id;

  /** Events at {@code atMillis} replayed under {@code replayId}, at clock reading {@code now}. */
  Replay(long now, long deadlineNanos, long atMillis, String replayId) {
    super(now, deadlineNanos);
    this.at = Math.min(atMillis, now);
    this.id = Doc.replayId(replayId);
  }

  private static final java.util.regex.Pattern ID =
      java.util.regex.Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

  /**
   * The refusal of a malformed {@code replayId} (the SPI allows 1 to 64 characters of
   * {@code [A-Za-z0-9_.:-]}), or null if it is well formed.
   */
  static IllegalArgumentException checkId(String replayId) {
    return replayId != null && ID.matcher(replayId).matches() ? null
        : new IllegalArgumentException(
            "replayId must be 1 to 64 characters of [A-Za-z0-9_.:-], was " + replayId);
  }

  /**
   * Records the events at {@code at} into the windows of {@code doc} that hold it at effective
   * time {@code eff} ({@code at <= eff}); returns whether any did.
   */
  abstract boolean record(Doc doc, long at, long eff);

  @Override
  final boolean apply(Doc doc, long eff) {
    if (doc.replayed(id, eff) || !record(doc, at, eff)) {
      return false;
    }
    doc.rememberReplay(id, eff);
    return true;
  }

  @Override
  final long eventTime(long eff) {
    return at;
  }
}
