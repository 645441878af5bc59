package io.windowpane.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Operations: {@code /health} (readiness: does the backend answer), {@code /health/live},
 * {@code /metrics} (Prometheus) and {@code /v1/openapi.yaml}.
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
    long start = System.nanoTime();
    CompletableFuture<Void> probe;
    try {
      probe = service.windowpane().probeAsync().toCompletableFuture();
    } catch (RuntimeException e) {
      probe = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> bounded = probe.orTimeout(PROBE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    ctx.future(() -> bounded.handle((ok, failure) -> {
      long nanos = System.nanoTime() - start;
      service.metrics().backend("probe", failure == null, nanos);
      ObjectNode body = Json.object();
      body.put("status", failure == null ? "up" : "down");
      body.put("engine", service.engineName());
      ObjectNode backend = body.putObject("backend");
      backend.put("status", failure == null ? "up" : "down");
      if (failure == null) {
        backend.put("latencyMillis", Math.round(nanos / 1e4) / 100.0);
      } else {
        Throwable cause = Replies.unwrap(failure);
        backend.put("error", cause instanceof java.util.concurrent.TimeoutException
            ? "no answer within " + PROBE_TIMEOUT_MILLIS + " ms" : String.valueOf(cause.getMessage()));
      }
      Replies.json(ctx, failure == null ? 200 : 503, body);
      return null;
    }));
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
