package io.windowpane.spring.internal;

import java.util.function.Supplier;

/**
 * The span of each decision the guard takes (Micrometer's Observation API when Micrometer
 * Tracing is present: {@link ObservationDecisionTracing}). The no-op default keeps the guard
 * free of any tracing library.
 */
public interface DecisionTracing {

  DecisionTracing NONE = new DecisionTracing() {};

  /** Starts the span of a decision of limiter {@code limiter}; null when not tracing. */
  default Object start(String limiter) {
    return null;
  }

  /** Runs {@code call} with {@code span} current, so backend calls hang under it. */
  default <T> T inScope(Object span, Supplier<T> call) {
    return call.get();
  }

  /** Ends {@code span} with the decision's outcome (null if none) or its failure. */
  default void end(Object span, RateLimitGuard.Outcome outcome, Throwable failure) {}
}
