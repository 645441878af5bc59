package io.windowpane.server.internal;

import io.windowpane.config.RateLimitHeaders;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.micrometer.observation.Observation;
import io.windowpane.Decision;
import io.windowpane.KeyCreationRefusedException;
import io.windowpane.Limit;
import io.windowpane.config.EngineConfig.OnFailure;
import io.windowpane.server.internal.Catalog.LimiterEntry;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * {@code /v1/limiters}: acquire (200 allowed, 429 denied, with the RateLimit headers), batch
 * acquire, and the descriptions. When a single engine fails, {@code engine.onFailure} decides:
 * an error (503), or an allowed or denied decision marked {@code degraded}. Over a failover
 * chain the library decides: a reply names the member that answered ({@code engine}) and is
 * {@code degraded} when that was a fallback (with its state) or the chain's last resort
 * (engine {@code none}, without state, like the service's own degraded answer).
 */
final class LimiterApi {

  private static final Set<String> ACQUIRE = Set.of("key", "permits");
  private static final Set<String> ACQUIRE_BATCH = Set.of("keys", "permits");
  private static final Set<String> PEEK = Set.of("key", "permits");
  /**
   * A degraded denial did not ask the backend; it suggests a retry after this long. Degraded
   * replies record nothing, carry remaining 0, reset 0, no deniedBy and no RateLimit header.
   */
  private static final long DEGRADED_RETRY_MILLIS = 1_000;
  /** {@link Decision#engine()} of a failover chain's last-resort answer. */
  private static final String LAST_RESORT = "none";

  private static final org.slf4j.Logger SHADOW_LOG =
      org.slf4j.LoggerFactory.getLogger("io.windowpane.shadow");

  private final Service service;

  LimiterApi(Service service) {
    this.service = service;
  }

  void register(RoutesConfig routes) {
    routes.get("/v1/limiters", this::list);
    routes.get("/v1/limiters/{limiter}", this::describe);
    routes.post("/v1/limiters/{limiter}/acquire", this::acquire);
    routes.post("/v1/limiters/{limiter}/acquire-batch", this::acquireBatch);
    routes.get("/v1/limiters/{limiter}/top", this::top);
    routes.get("/v1/limiters/{limiter}/peek", this::peek);
  }

  private void top(Context ctx) {
    LimiterEntry entry = service.catalog().limiter(ctx.pathParam("limiter"));
    TopKeysApi.Ask ask = TopKeysApi.ask(service, ctx, true);
    TopKeysApi.reply(service, ctx, "limiter", entry.name(), ask, ask.denied()
        ? entry.limiter().topDenied(ask.n()) : entry.limiter().top(ask.n()));
  }

  /** What an acquire would answer now, recording and counting nothing: always 200. */
  private void peek(Context ctx) {
    LimiterEntry entry = service.catalog().limiter(ctx.pathParam("limiter"));
    String key = service.queryKey(ctx, PEEK);
    long permits = 1;
    String p = ctx.queryParam("permits");
    if (p != null) {
      try {
        permits = Long.parseLong(p);
      } catch (NumberFormatException e) {
        permits = -1;
      }
      if (permits < 1 || permits > entry.quota().smallestPermits()) {
        throw ApiError.invalid("permits", "permits must be an integer in [1, "
            + entry.quota().smallestPermits() + "], was '" + p + "'");
      }
    }
    long now = service.clock().millis();
    Decision decision = entry.limiter().peek(key, permits)
        .orElseThrow(() -> TopKeysApi.notSupported(service, "peeks"));
    ObjectNode body = Json.object();
    body.put("limiter", entry.name());
    decision(body, entry, key, permits, decision, answer(decision, false), now);
    body.put("peek", true);
    Replies.json(ctx, 200, body);
  }

  private void list(Context ctx) {
    service.onlyQuery(ctx, Set.of());
    ObjectNode body = Json.object();
    ArrayNode all = body.putArray("limiters");
    service.catalog().limiters().values()
        .forEach(e -> all.add(Describe.limiter(e.name(), e.quota(), e.shadow())));
    Replies.json(ctx, 200, body);
  }

  private void describe(Context ctx) {
    service.onlyQuery(ctx, Set.of());
    LimiterEntry entry = service.catalog().limiter(ctx.pathParam("limiter"));
    Replies.json(ctx, 200, Describe.limiter(entry.name(), entry.quota(), entry.shadow()));
  }

  private void acquire(Context ctx) {
    LimiterEntry entry = service.catalog().limiter(ctx.pathParam("limiter"));
    JsonBody body = service.body(ctx, ACQUIRE);
    String key = body.key("key");
    long permits = body.integer("permits", 1, Limit.MAX_PERMITS, 1);
    long now = service.clock().millis();
    Observation span = decisionSpan(ctx, "acquire " + entry.name(), entry.name());
    service.backend().call(ctx, "acquire",
        () -> span.scoped(() -> entry.limiter().tryAcquireAsync(key, permits)),
        decision -> {
          Tracing.end(span, null, null);
          reply(ctx, entry, key, permits, decision, false, now);
        },
        failure -> degrade(ctx, entry, key, permits, failure, now, span));
  }

  /** The span of one HTTP decision, in the trace of the request's traceparent if any. */
  private Observation decisionSpan(Context ctx, String name, String limiter) {
    return service.tracing().decision(ctx, Context::header, name, limiter,
        service.engineName());
  }

  private void degrade(Context ctx, LimiterEntry entry, String key, long permits,
      Throwable failure, long now, Observation span) {
    OnFailure policy = service.onFailure();
    if (!Replies.isBackendFailure(failure) || policy == OnFailure.ERROR) {
      Tracing.end(span, null, failure);
      service.replies().failure(ctx, failure);
      return;
    }
    Decision degraded = degraded(entry, policy);
    Tracing.end(span, degraded, failure);
    reply(ctx, entry, key, permits, degraded, true, now);
  }

  private void reply(Context ctx, LimiterEntry entry, String key, long permits,
      Decision decision, boolean serviceDegraded, long now) {
    Answer a = answer(decision, serviceDegraded);
    count(entry, decision, a);
    ObjectNode body = Json.object();
    body.put("limiter", entry.name());
    decision(body, entry, key, permits, decision, a, now);
    ctx.header("RateLimit-Policy", entry.policyHeader());
    if (!a.stateless) {
      ctx.header("RateLimit",
          RateLimitHeaders.current(entry.name(), entry.quota(), decision, now));
    }
    boolean denied = !decision.allowed() && !entry.shadow();
    if (denied) {
      ctx.header("Retry-After", Long.toString(
          Math.max(1, RateLimitHeaders.ceilSeconds(decision.retryAfterMillis()))));
    }
    Replies.json(ctx, denied ? 429 : 200, body);
  }

  /**
   * Who answered and how: the service's own degraded answer; a chain's last resort (engine
   * "none"), which knows no state either; or an engine, the chain's primary or a fallback
   * (degraded), whose answer carries its state.
   */
  private Answer answer(Decision decision, boolean serviceDegraded) {
    if (serviceDegraded) {
      return new Answer(service.engineName(), true, true);
    }
    String engine = decision.engine().orElse(service.engineName());
    return new Answer(engine, decision.degraded(), engine.equals(LAST_RESORT));
  }

  private record Answer(String engine, boolean degraded, boolean stateless) {}

  /** Counts {@code decision}; a shadow limiter's denial is counted as {@code would_deny}. */
  private void count(LimiterEntry entry, Decision decision, Answer a) {
    ServiceMetrics.Outcome outcome = decision.allowed() ? ServiceMetrics.Outcome.ALLOWED
        : entry.shadow() ? ServiceMetrics.Outcome.WOULD_DENY : ServiceMetrics.Outcome.DENIED;
    service.metrics().decision(entry.name(), outcome, a.degraded);
    if (outcome == ServiceMetrics.Outcome.WOULD_DENY) {
      SHADOW_LOG.info("shadow limiter {} would deny: {}", entry.name(),
          decision.deniedBy().map(l -> l.name()).orElse("(degraded)"));
    }
  }

  private void decision(ObjectNode body, LimiterEntry entry, String key, long permits,
      Decision decision, Answer a, long now) {
    body.put("key", key);
    body.put("permits", permits);
    body.put("allowed", decision.allowed() || entry.shadow());
    body.put("remaining", a.stateless ? 0 : decision.remaining());
    body.put("retryAfterMillis", decision.retryAfterMillis());
    body.put("resetMillis", a.stateless ? 0 : RateLimitHeaders.resetMillis(entry.quota(), now));
    if (decision.allowed() || a.stateless) {
      body.putNull("deniedBy");
    } else {
      Limit by = decision.deniedBy().orElseThrow();
      ObjectNode limit = body.putObject("deniedBy");
      limit.put("name", by.name());
      limit.put("permits", by.permits());
      limit.put("windowMillis", by.window().windowMillis());
    }
    body.put("engine", a.engine);
    body.put("degraded", a.degraded);
    body.put("shadow", entry.shadow());
    if (entry.shadow()) {
      body.put("wouldDeny", !decision.allowed());
    }
  }

  private void acquireBatch(Context ctx) {
    LimiterEntry entry = service.catalog().limiter(ctx.pathParam("limiter"));
    JsonBody body = service.body(ctx, ACQUIRE_BATCH);
    List<String> keys = body.keys("keys");
    long permits = body.integer("permits", 1, Limit.MAX_PERMITS, 1);
    long now = service.clock().millis();
    Observation span = decisionSpan(ctx, "acquire-batch " + entry.name(), entry.name());
    service.backend().call(ctx, "acquire",
        () -> span.scoped(() -> entry.limiter().tryAcquireAllAsync(keys, permits)),
        decisions -> {
          Tracing.end(span, null, null);
          replyBatch(ctx, entry, keys, permits, decisions, new BitSet(), now);
        },
        failure -> {
          OnFailure policy = service.onFailure();
          if (!Replies.isBackendFailure(failure) || policy == OnFailure.ERROR) {
            Tracing.end(span, null, failure);
            service.replies().failure(ctx, failure);
            return;
          }
          Decision degraded = degraded(entry, policy);
          Tracing.end(span, degraded, failure);
          List<Decision> each = new ArrayList<>(Collections.nCopies(keys.size(), degraded));
          BitSet stood = new BitSet();
          stood.set(0, keys.size());
          if (Replies.unwrap(failure) instanceof KeyCreationRefusedException refused) {
            List<Object> answers = refused.answers().orElse(List.of());
            for (int i = 0; i < answers.size(); i++) { // the items Redis decided, once
              if (answers.get(i) instanceof Decision d) {
                each.set(i, d);
                stood.clear(i);
              }
            }
          }
          replyBatch(ctx, entry, keys, permits, each, stood, now);
        });
  }

  /** {@code serviceDegraded}: the items answered by the service's policy, not the engine. */
  private void replyBatch(Context ctx, LimiterEntry entry, List<String> keys, long permits,
      List<Decision> decisions, BitSet serviceDegraded, long now) {
    ObjectNode reply = Json.object();
    reply.put("limiter", entry.name());
    ArrayNode all = reply.putArray("decisions");
    for (int i = 0; i < keys.size(); i++) {
      Decision d = decisions.get(i);
      Answer a = answer(d, serviceDegraded.get(i));
      count(entry, d, a);
      decision(all.addObject(), entry, keys.get(i), permits, d, a, now);
    }
    Replies.json(ctx, 200, reply);
  }

  private static Decision degraded(LimiterEntry entry, OnFailure policy) {
    return policy == OnFailure.ALLOW
        ? Decision.allowed(0)
        : Decision.denied(0, entry.quota().limits().get(0), DEGRADED_RETRY_MILLIS);
  }
}
