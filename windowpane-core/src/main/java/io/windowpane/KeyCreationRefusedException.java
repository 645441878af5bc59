package io.windowpane;

/**
 * A write refused because it would create a new key in a store that is short of memory: the
 * engine's memory guard saw the store above its pressure level, and the store's own atomic
 * call refused the creation before reading or writing anything. Keys that already exist keep
 * working meanwhile; nothing was recorded for this call.
 *
 * <p>In a {@link Failover} chain this is not a failure of the member: the call goes to the next
 * member (the refusing member acts as {@link Failover.Health#READ_ONLY} for new keys only, and
 * its breaker does not count it), and where no member is left the chain's {@link OnFailure}
 * policy answers a rate-limit decision. Outside a chain it reaches the caller.
 */
public class KeyCreationRefusedException extends WindowpaneException {

  private static final long serialVersionUID = 1L;

  public KeyCreationRefusedException(String message) {
    super(message);
  }
}
