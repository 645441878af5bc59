package io.windowpane;

/**
 * What a {@link Failover} chain answers a rate-limit decision with when no member of the chain
 * can: the last resort. Counters and statistics have no sensible stand-in answer, so they fail
 * with a {@link WindowpaneException} whatever the policy.
 */
public enum OnFailure {

  /** The call fails with a {@link WindowpaneException} carrying the last member's failure. */
  ERROR,

  /**
   * Fail open: the request is allowed, recorded nowhere, with {@code remaining} 0, marked
   * {@link Decision#degraded() degraded} and answered by engine {@code "none"}.
   */
  ALLOW,

  /**
   * Fail closed: the request is denied by the quota's first limit, recorded nowhere, with a
   * {@code retryAfter} of one second, marked degraded and answered by engine {@code "none"}.
   */
  DENY
}
