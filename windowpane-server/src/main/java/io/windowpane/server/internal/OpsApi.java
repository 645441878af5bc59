package io.windowpane.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.windowpane.Failover;
import io.windowpane.MemoryStatus;
import io.windowpane.micrometer.MemoryMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Operations: {@code /health} (readiness: does the backend answer), {@code /health/live},
 * {@code /metrics} (Prometheus) and {@code /v1/openapi.yaml}. Over a failover chain,
 * {@code /health} asks the chain, whose own probes keep each member's state: 200 while a member
 * takes writes ({@code "degraded"} when it is not the first), 503 when none does, and every
 * member's state in {@code chain}. With a Redis memory guard, {@code memory} holds its level.
 */
final class OpsApi {

  /** A health probe that gets no answer within this long reports the backend down. */
  private static final long PROBE_TIMEOUT_MILLIS = 2_000;

  private final Service service;
  private final byte[] openApi;

  OpsApi(Service service) {
    this.service = service;
    this.openApi = resource("/io/windowpane/server/openapi.yaml");
  }

  void register(RoutesConfig routes) {
    routes.get("/health", this::health);
    routes.get("/health/live", ctx -> {
      ObjectNode body = Json.object();
      body.put("status", "up");
      Replies.json(ctx, 200, body);
    });
    routes.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
        .result(service.metrics().scrape()));
    routes.get("/v1/openapi.yaml", ctx -> ctx.contentType("application/yaml").result(openApi));
  }

  private void health(Context ctx) {
    Failover chain = service.chain().orElse(null);
    long start = System.nanoTime();
    CompletableFuture<Void> probe;
    try {
      probe = (chain != null ? chain.probe() : service.windowpane().probeAsync())
          .toCompletableFuture();
    } catch (RuntimeException e) {
      probe = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> bounded = probe.orTimeout(PROBE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    ctx.future(() -> bounded.handle((ok, failure) -> {
      long nanos = System.nanoTime() - start;
      service.metrics().backend("probe", failure == null, nanos);
      boolean degraded = chain != null && chain.degraded(); // read once: one answer
      ObjectNode body = Json.object();
      body.put("status", failure != null ? "down" : degraded ? "degraded" : "up");
      body.put("engine", service.engineName());
      if (chain != null) {
        body.put("active", chain.activeEngine());
        body.put("degraded", degraded);
      }
      ObjectNode backend = body.putObject("backend");
      backend.put("status", failure == null ? "up" : "down");
      if (failure == null) {
        backend.put("latencyMillis", Math.round(nanos / 1e4) / 100.0);
      } else {
        Throwable cause = Replies.unwrap(failure);
        backend.put("error", cause instanceof java.util.concurrent.TimeoutException
            ? "no answer within " + PROBE_TIMEOUT_MILLIS + " ms" : String.valueOf(cause.getMessage()));
      }
      if (chain != null) {
        members(body.putArray("chain"), chain);
      }
      service.windowpane().memoryStatus().ifPresent(m -> memory(body.putObject("memory"), m));
      Replies.json(ctx, failure == null ? 200 : 503, body);
      return null;
    }));
  }

  /** Each member of {@code chain}, in order: health, signals, since when, pending replay. */
  private static void members(ArrayNode out, Failover chain) {
    for (Failover.MemberStatus m : chain.status()) {
      ObjectNode member = out.addObject();
      member.put("engine", m.engine());
      member.put("health", m.health().name().toLowerCase(Locale.ROOT));
      ArrayNode signals = member.putArray("signals");
      m.signals().forEach(signal -> signals.add(signal.name().toLowerCase(Locale.ROOT)));
      member.put("since", Instant.ofEpochMilli(m.sinceMillis()).toString());
      member.put("replays", m.replays());
      member.put("pendingReplay", m.pendingReplay());
    }
  }

  /**
   * The memory guard's last reading: level, usage, bytes, policy and counters. Informational: a
   * level of pressure leaves the status as it is (existing keys keep working).
   */
  static void memory(ObjectNode out, MemoryStatus m) {
    MemoryMetrics.healthDetail(m).forEach(out::putPOJO);
  }


  private static byte[] resource(String path) {
    try (InputStream in = OpsApi.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(path + " is missing from the jar; build with Maven");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
