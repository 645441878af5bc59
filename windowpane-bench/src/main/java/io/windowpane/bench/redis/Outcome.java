package io.windowpane.bench.redis;

/** What one call of a {@link Contender} did. */
enum Outcome {
  /** The event fitted the limit and was recorded. */
  ALLOWED,
  /** The event did not fit; whether it was recorded depends on the design (see the contender). */
  DENIED,
  /** Counted without a decision ({@code INCR}, the ceiling). */
  COUNTED,
  /** A lock-based contender could not take its lock before its deadline: no decision. */
  GAVE_UP
}
