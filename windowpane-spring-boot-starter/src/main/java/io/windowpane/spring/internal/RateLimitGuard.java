package io.windowpane.spring.internal;

import io.windowpane.Decision;
import io.windowpane.MillisClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowpaneException;
import io.windowpane.config.EngineConfig.OnFailure;
import io.windowpane.config.RateLimitHeaders;
import io.windowpane.spring.RateLimitExceededException;
import io.windowpane.spring.RateLimitKeyException;
import io.windowpane.spring.WindowpaneProperties.NullKeyPolicy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Design note: the annotation and both filters decide here, so that they agree on shadow mode,
 * on what a failing backend answers (engine.onFailure, as in the service: error rethrows, allow
 * lets the call through, deny denies with Retry-After: 1, both marked degraded and without
 * state), on the headers (RateLimitHeaders, shared with the service) and on the meters.
 */

/** Takes permits for a key from a limiter and says whether the call may go on. Thread-safe. */
public final class RateLimitGuard {

  private static final Logger SHADOW_LOG = LoggerFactory.getLogger("io.windowpane.shadow");
  /** A degraded denial did not ask the backend; it suggests a retry after this long. */
  private static final long DEGRADED_RETRY_MILLIS = 1_000;

  /** What to take: {@code permits} from {@code limiter}, called {@code name}. */
  public record Target(String name, RateLimiter limiter, long permits, boolean shadow) {
    Quota quota() {
      return limiter.quota();
    }
  }

  /**
   * Which rate-limit headers to send and under which names ({@code windowpane.response.headers});
   * an empty name leaves that header out. {@code shadow}: whether limiters in shadow mode send
   * headers at all.
   */
  public record HeaderOptions(boolean enabled, boolean shadow, String policy, String limit,
      String retryAfter) {
    /** The service's headers; none from shadow limiters. */
    public static final HeaderOptions DEFAULT =
        new HeaderOptions(true, false, "RateLimit-Policy", "RateLimit", "Retry-After");
  }

  /** A decision on a target at {@code nowMillis}; {@code degraded}: onFailure answered. */
  public record Outcome(Target target, Decision decision, boolean degraded, long nowMillis,
      HeaderOptions options) {

    /** Whether the call goes on: allowed, or denied by a limiter in shadow mode. */
    public boolean letThrough() {
      return decision.allowed() || target.shadow();
    }

    /**
     * The service's headers, under the configured names: RateLimit-Policy; RateLimit unless
     * degraded (no state); Retry-After when the call is refused. None for a limiter in shadow
     * mode unless {@link HeaderOptions#shadow()}: a client must not back off from a limit that
     * is not enforced.
     */
    public Map<String, String> headers() {
      Map<String, String> h = new LinkedHashMap<>();
      if (target.shadow() && !options.shadow()) {
        return h;
      }
      if (options.enabled() && !options.policy().isEmpty()) {
        h.put(options.policy(), RateLimitHeaders.policy(target.quota()));
      }
      if (options.enabled() && !options.limit().isEmpty() && !degraded) {
        h.put(options.limit(), RateLimitHeaders.current(target.name(), target.quota(), decision,
            nowMillis));
      }
      if (!letThrough() && !options.retryAfter().isEmpty()) {
        h.put(options.retryAfter(), Long.toString(
            Math.max(1, RateLimitHeaders.ceilSeconds(decision.retryAfterMillis()))));
      }
      return h;
    }

    /**
     * The headers of a refused call that a fallback method answers: those of {@link #headers()}
     * without Retry-After, since the response is not a refusal.
     */
    public Map<String, String> fallbackHeaders() {
      Map<String, String> h = headers();
      h.remove(options.retryAfter());
      return h;
    }

    /** The exception for a refused call. */
    public RateLimitExceededException exception() {
      return new RateLimitExceededException(target.name(), decision, headers(), degraded);
    }
  }

  private final MillisClock clock;
  private final OnFailure onFailure;
  private final DecisionListener listener;
  private final HeaderOptions headers;
  private final NullKeyPolicy onNullKey;
  private final MetricTags tags;
  private final DecisionTracing tracing;

  public RateLimitGuard(MillisClock clock, OnFailure onFailure, DecisionListener listener) {
    this(clock, onFailure, listener, HeaderOptions.DEFAULT, NullKeyPolicy.SHARED,
        MetricTags.NONE);
  }

  public RateLimitGuard(MillisClock clock, OnFailure onFailure, DecisionListener listener,
      HeaderOptions headers, NullKeyPolicy onNullKey, MetricTags tags) {
    this(clock, onFailure, listener, headers, onNullKey, tags, DecisionTracing.NONE);
  }

  public RateLimitGuard(MillisClock clock, OnFailure onFailure, DecisionListener listener,
      HeaderOptions headers, NullKeyPolicy onNullKey, MetricTags tags, DecisionTracing tracing) {
    this.tracing = tracing;
    this.clock = clock;
    this.onFailure = onFailure;
    this.listener = listener;
    this.headers = headers;
    this.onNullKey = onNullKey;
    this.tags = tags;
  }

  /** The key under which calls whose key expression gave nothing are counted (policy shared). */
  public static final String SHARED_KEY = "-";

  /**
   * The key to decide on for {@code key}, the value of {@code expression} (null or empty when it
   * gave nothing), by {@code windowpane.keys.on-null}: the key itself, {@link #SHARED_KEY}, or
   * null to skip limiting.
   *
   * @throws RateLimitKeyException the key is missing and the policy is reject
   */
  public String keyOrPolicy(Target target, String key, String expression) {
    if (key != null && !key.isEmpty()) {
      return key;
    }
    switch (onNullKey) {
      case REJECT:
        throw new RateLimitKeyException(target.name(), expression);
      case SKIP:
        return null;
      default:
        return SHARED_KEY;
    }
  }

  /** Decides now, blocking for the backend. */
  public Outcome acquire(Target target, String key) {
    return acquire(target, key, null);
  }

  /**
   * Decides now, blocking for the backend; {@code request} (null outside a web request) gives
   * the values of {@code windowpane.metrics.tags}.
   */
  public Outcome acquire(Target target, String key, RequestView request) {
    if (tracing == DecisionTracing.NONE) {
      return decide(target, key, request);
    }
    Object span = tracing.start(target.name());
    Outcome outcome = null;
    RuntimeException failure = null;
    try {
      outcome = tracing.inScope(span, () -> decide(target, key, request));
      return outcome;
    } catch (RuntimeException e) {
      failure = e;
      throw e;
    } finally {
      tracing.end(span, outcome, failure);
    }
  }

  private Outcome decide(Target target, String key, RequestView request) {
    long now = clock.millis();
    long start = System.nanoTime();
    Decision decision;
    try {
      decision = target.limiter().tryAcquire(key, target.permits());
    } catch (WindowpaneException e) {
      listener.backend("acquire", false, System.nanoTime() - start);
      return degrade(target, e, now, request);
    }
    listener.backend("acquire", true, System.nanoTime() - start);
    return done(target, decision, false, now, request);
  }

  /** Decides without blocking the caller; {@code request} as for {@link #acquire}. */
  public CompletionStage<Outcome> acquireAsync(Target target, String key, RequestView request) {
    if (tracing == DecisionTracing.NONE) {
      return decideAsync(target, key, request);
    }
    Object span = tracing.start(target.name());
    CompletionStage<Outcome> decided;
    try {
      decided = tracing.inScope(span, () -> decideAsync(target, key, request));
    } catch (RuntimeException e) {
      tracing.end(span, null, e);
      throw e;
    }
    return decided.whenComplete((outcome, failure) -> tracing.end(span, outcome, failure));
  }

  private CompletionStage<Outcome> decideAsync(Target target, String key, RequestView request) {
    long now = clock.millis();
    long start = System.nanoTime();
    CompletionStage<Decision> call;
    try {
      call = target.limiter().tryAcquireAsync(key, target.permits());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return call.handle((decision, failure) -> {
      listener.backend("acquire", failure == null, System.nanoTime() - start);
      if (failure == null) {
        return done(target, decision, false, now, request);
      }
      Throwable cause = failure instanceof CompletionException && failure.getCause() != null
          ? failure.getCause() : failure;
      if (cause instanceof WindowpaneException w) {
        return degrade(target, w, now, request);
      }
      throw failure instanceof CompletionException c ? c : new CompletionException(failure);
    });
  }

  private Outcome degrade(Target target, WindowpaneException failure, long now,
      RequestView request) {
    switch (onFailure) {
      case ALLOW:
        return done(target, Decision.allowed(0), true, now, request);
      case DENY:
        return done(target, Decision.denied(0, target.quota().limits().get(0),
            DEGRADED_RETRY_MILLIS), true, now, request);
      default:
        throw failure;
    }
  }

  private Outcome done(Target target, Decision decision, boolean serviceDegraded, long now,
      RequestView request) {
    boolean degraded = serviceDegraded || decision.degraded();
    String outcome = decision.allowed() ? "allowed" : target.shadow() ? "would_deny" : "denied";
    if (tags.isEmpty()) {
      listener.decision(target.name(), outcome, degraded);
    } else {
      listener.decision(target.name(), outcome, degraded, tags.values(request));
    }
    if (!decision.allowed() && target.shadow()) {
      SHADOW_LOG.info("shadow limiter {} would deny: {}", target.name(),
          decision.deniedBy().map(l -> l.name()).orElse("(degraded)"));
    }
    // a chain's last resort (engine "none") knows no state either, as in the service
    boolean stateless = serviceDegraded || decision.engine().filter("none"::equals).isPresent();
    return new Outcome(target, decision, stateless, now, headers);
  }
}
