package io.windowpane.spring.internal;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.windowpane.micrometer.ObservationEngineObserver;
import java.util.function.Supplier;

/**
 * Each decision of the guard as a {@code windowpane.decision} observation, child of the
 * application's current one (the HTTP request's, on Spring MVC), with the engine's calls under
 * it ({@link ObservationEngineObserver} tags it with the outcome, member and degraded flag). A
 * decision the starter answered itself after the backend failed ({@code engine.on-failure})
 * is tagged here, degraded.
 */
public final class ObservationDecisionTracing implements DecisionTracing {

  private final ObservationRegistry registry;
  private final String engine;

  public ObservationDecisionTracing(ObservationRegistry registry, String engine) {
    this.registry = registry;
    this.engine = engine;
  }

  @Override
  public Object start(String limiter) {
    return ObservationEngineObserver.decision(registry, "windowpane " + limiter, limiter,
        engine);
  }

  @Override
  public <T> T inScope(Object span, Supplier<T> call) {
    return ((Observation) span).scoped(call);
  }

  @Override
  public void end(Object span, RateLimitGuard.Outcome outcome, Throwable failure) {
    Observation o = (Observation) span;
    if (failure != null) {
      o.error(failure instanceof java.util.concurrent.CompletionException c
          && c.getCause() != null ? c.getCause() : failure);
    }
    if (outcome != null && ObservationEngineObserver.undecided(o)) {
      o.lowCardinalityKeyValue(ObservationEngineObserver.OUTCOME,
          outcome.decision().allowed() ? "allowed" : "denied")
          .lowCardinalityKeyValue(ObservationEngineObserver.MEMBER, engine)
          .lowCardinalityKeyValue(ObservationEngineObserver.DEGRADED,
              Boolean.toString(outcome.degraded()));
    }
    o.stop();
  }
}
