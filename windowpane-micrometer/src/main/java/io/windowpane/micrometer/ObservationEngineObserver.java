package io.windowpane.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.windowpane.Decision;
import io.windowpane.spi.EngineObserver;

/**
 * windowpane's {@link EngineObserver} over Micrometer's Observation API: each backend call is a
 * {@value #CALL} observation, child of the caller's current observation; a decision tags the
 * {@value #DECISION} observation it was made under with its outcome, the member that answered
 * and whether it was degraded. With Micrometer Tracing (its OpenTelemetry bridge or Brave)
 * registered on the registry, each observation is a span (docs/observability.md):
 *
 * <pre>
 * windowpane.decision  "acquire api"       windowpane.limiter=api windowpane.engine=failover
 *                                          windowpane.outcome=allowed windowpane.member=local
 *                                          windowpane.degraded=true
 *   windowpane.call    "redis tryAcquire"  windowpane.fallback=false  (error: timed out)
 *   windowpane.call    "local tryAcquire"  windowpane.fallback=true
 * </pre>
 *
 * <p>The service and the Spring Boot starter open the decision observation around each
 * decision ({@link #decision}) and install this observer with
 * {@code Windowpane.using(engine, new ObservationEngineObserver(registry))}. Thread-safe.
 */
public final class ObservationEngineObserver implements EngineObserver {

  /** The observation of one decision (an HTTP acquire, an Envoy request, an annotated call). */
  public static final String DECISION = "windowpane.decision";
  /** The observation of one backend call (one member asked). */
  public static final String CALL = "windowpane.call";

  /** Tag: the limiter (decision). */
  public static final String LIMITER = "windowpane.limiter";
  /** Tag: the Windowpane's engine, "failover" for a chain (decision). */
  public static final String ENGINE = "windowpane.engine";
  /**
   * Tag: allowed, denied, or mixed for a batch of both (decision); {@value #UNKNOWN} until the
   * decision is known (and after a failure).
   */
  public static final String OUTCOME = "windowpane.outcome";
  /** Tag: the member that answered (decision), {@value #UNKNOWN} until known; or asked (call). */
  public static final String MEMBER = "windowpane.member";
  /** Tag: whether a fallback or the chain's last resort answered (decision). */
  public static final String DEGRADED = "windowpane.degraded";
  /** Tag: the store operation, e.g. tryAcquire (call). */
  public static final String OPERATION = "windowpane.operation";
  /** Tag: whether the member asked is a fallback of a chain (call). */
  public static final String FALLBACK = "windowpane.fallback";

  /** The value of outcome and member before a decision is known: every decision has the keys. */
  public static final String UNKNOWN = "unknown";

  private final ObservationRegistry registry;

  /** An observer making its observations in {@code registry}. */
  public ObservationEngineObserver(ObservationRegistry registry) {
    if (registry == null) {
      throw new IllegalArgumentException("registry must not be null");
    }
    this.registry = registry;
  }

  /**
   * A started {@value #DECISION} observation for limiter {@code limiter} (may be null for a
   * request over several limiters) on {@code engine}, named {@code contextualName} (the span's
   * name), child of the current observation. The caller opens its scope around the decision's
   * call, so backend calls hang under it, and stops it once the decision is answered.
   */
  public static Observation decision(ObservationRegistry registry, String contextualName,
      String limiter, String engine) {
    return decision(registry, Observation.Context::new, contextualName, limiter, engine);
  }

  /**
   * {@link #decision(ObservationRegistry, String, String, String)} with its own context, e.g. a
   * {@code ReceiverContext} that carries the request whose trace it joins. Every decision has
   * the same tag keys (Prometheus requires it of a timer the observation may become): outcome,
   * member and degraded start {@value #UNKNOWN}, {@value #UNKNOWN} and false; limiter is
   * {@code "-"} for a request over several limiters (null).
   */
  public static Observation decision(ObservationRegistry registry,
      java.util.function.Supplier<? extends Observation.Context> context, String contextualName,
      String limiter, String engine) {
    return Observation.createNotStarted(DECISION, context, registry)
        .contextualName(contextualName)
        .lowCardinalityKeyValue(ENGINE, engine)
        .lowCardinalityKeyValue(LIMITER, limiter == null ? "-" : limiter)
        .lowCardinalityKeyValue(OUTCOME, UNKNOWN)
        .lowCardinalityKeyValue(MEMBER, UNKNOWN)
        .lowCardinalityKeyValue(DEGRADED, "false")
        .start();
  }

  /** Whether {@code o}'s outcome is still {@value #UNKNOWN} (no decision tagged it). */
  public static boolean undecided(Observation o) {
    io.micrometer.common.KeyValue outcome = o.getContext().getLowCardinalityKeyValue(OUTCOME);
    return outcome == null || outcome.getValue().equals(UNKNOWN);
  }

  /** The current observation: what backend calls and decisions hang under. */
  @Override
  public Object parent() {
    return registry.getCurrentObservation();
  }

  @Override
  public Object callStarted(Object parent, String member, String operation, boolean fallback) {
    Observation o = Observation.createNotStarted(CALL, registry)
        .contextualName(member + " " + operation)
        .lowCardinalityKeyValue(MEMBER, member)
        .lowCardinalityKeyValue(OPERATION, operation)
        .lowCardinalityKeyValue(FALLBACK, Boolean.toString(fallback));
    if (parent instanceof Observation p) {
      o.parentObservation(p);
    }
    return o.start();
  }

  @Override
  public void callEnded(Object call, Throwable failure) {
    if (call instanceof Observation o) {
      if (failure != null) {
        o.error(failure);
      }
      o.stop();
    }
  }

  /**
   * Tags the {@value #DECISION} observation the decision was made under (nothing else: a
   * decision made outside one is only seen through its calls).
   */
  @Override
  public void decided(Object parent, String limiter, Decision decision) {
    if (!(parent instanceof Observation p) || p.isNoop()
        || !DECISION.equals(p.getContext().getName())) {
      return;
    }
    String outcome = decision.allowed() ? "allowed" : "denied";
    io.micrometer.common.KeyValue before = p.getContext().getLowCardinalityKeyValue(OUTCOME);
    if (before != null && !before.getValue().equals(UNKNOWN)
        && !before.getValue().equals(outcome)) {
      outcome = "mixed";
    }
    String member = decision.engine().orElseGet(() -> {
      io.micrometer.common.KeyValue engine = p.getContext().getLowCardinalityKeyValue(ENGINE);
      return engine == null ? "unknown" : engine.getValue();
    });
    io.micrometer.common.KeyValue degradedBefore =
        p.getContext().getLowCardinalityKeyValue(DEGRADED);
    boolean degraded = decision.degraded()
        || (degradedBefore != null && degradedBefore.getValue().equals("true"));
    p.lowCardinalityKeyValue(OUTCOME, outcome)
        .lowCardinalityKeyValue(MEMBER, member)
        .lowCardinalityKeyValue(DEGRADED, Boolean.toString(degraded));
  }
}
