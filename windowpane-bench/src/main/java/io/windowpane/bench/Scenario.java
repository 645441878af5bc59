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
  DENIED;

  /** The limit of the denied scenario, per second. */
  public static final long DENIED_PER_SECOND = 100;
}
