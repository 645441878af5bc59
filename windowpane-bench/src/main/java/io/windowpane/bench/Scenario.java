package io.windowpane.bench;

/**
 * Whether the limit is out of reach during a run (the allowed path) or tiny (the denied path).
 */
public enum Scenario {

  /**
   * A limit so high it is never reached: every call takes the allow-and-record path. Where a
   * library cannot represent such a limit, {@link Implementation} says what it uses instead.
   */
  ALLOWED,

  /** {@value #DENIED_PER_SECOND} per second: after the first few calls of a second, all deny. */
  DENIED,

  /**
   * {@value #AT_LIMIT_PER_SECOND} per second: below the rate one thread reaches, so every
   * window fills to its limit and then denies: mixed allowed and denied decisions at the limit.
   */
  AT_LIMIT;

  /** The limit of the denied scenario, per second. */
  public static final long DENIED_PER_SECOND = 100;

  /** The limit of the at-the-limit scenario, per second. */
  public static final long AT_LIMIT_PER_SECOND = 10_000_000;

  /** The limit to use: {@code allowedLimit} in the allowed scenario, else this scenario's. */
  public long limit(long allowedLimit) {
    switch (this) {
      case ALLOWED:
        return allowedLimit;
      case AT_LIMIT:
        return AT_LIMIT_PER_SECOND;
      default:
        return DENIED_PER_SECOND;
    }
  }
}
