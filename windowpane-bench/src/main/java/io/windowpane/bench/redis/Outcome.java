package io.windowpane.bench.redis;

/** What one call of a {@link Contender} did. */
public enum Outcome {
  /** The event fitted the limit and was recorded. */
  ALLOWED,
  /** The event did not fit; whether it was recorded depends on the design (see the contender). */
  DENIED,
  /** Counted without a decision ({@code INCR}, the ceiling). */
  COUNTED,
  /**
   * No decision: a lock-based contender could not take its lock before its deadline, or a
   * compare-and-swap loop used up its attempts.
   */
  GAVE_UP
}
