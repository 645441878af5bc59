package io.windowpane.spring.internal;

/**
 * Where decisions and backend calls are reported (Micrometer when present). The no-op default
 * keeps the guard free of any metrics library.
 */
public interface DecisionListener {

  DecisionListener NONE = new DecisionListener() {};

  /** One decision; {@code outcome} is allowed, denied or would_deny (shadow mode). */
  default void decision(String limiter, String outcome, boolean degraded) {}

  /**
   * One decision with the application's extra tags ({@code windowpane.metrics.tags}), every
   * tag present; by default the tags are dropped.
   */
  default void decision(String limiter, String outcome, boolean degraded,
      java.util.Map<String, String> tags) {
    decision(limiter, outcome, degraded);
  }

  /** One call to the backend and how long it took. */
  default void backend(String operation, boolean ok, long nanos) {}
}
