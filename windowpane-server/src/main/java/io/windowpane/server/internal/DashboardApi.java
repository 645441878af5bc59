package io.windowpane.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.windowpane.server.internal.Catalog.LimiterEntry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Set;

/*
 * The live dashboard (docs/dashboard.md): a static page at /dashboard, its assets at
 * /dashboard/{asset}, and one JSON feed at /v1/dashboard/feed.
 *
 * Why polling and a feed of totals. The page asks the feed about once a second; the feed reads
 * the totals the service's meters already keep (ServiceMetrics: decisions per limiter, engine
 * call timers, errors) and the page turns two consecutive totals into a rate. The server keeps
 * no state per viewer: an idle dashboard costs the request path nothing, and a watched one
 * costs one map walk per poll. So that a page opened now can draw the last five minutes at once,
 * its first request asks for the history too (?history=true): DashboardHistory, sampled from the
 * same meters once a second off the request path. Polling rather than server-sent events because a
 * browser's EventSource cannot send an Authorization header; fetch can, so the page uses the
 * same bearer token as every other /v1 client, and a closed tab leaves no open stream behind.
 *
 * Auth. The page and its assets hold no data, so they are served without a token (the before-
 * handler lets /dashboard through); every number on the page comes from /v1, which needs the
 * token when tokens are configured. The page asks for the token once and keeps it in the tab's
 * sessionStorage.
 *
 * Assets. The page, its script and style are resources of this jar; the chart library is the
 * uPlot WebJar (org.webjars.npm:uplot, MIT), read from the classpath, so nothing comes from a
 * CDN. Assets are read once at start, and a missing one fails the start.
 */
final class DashboardApi {

  /** The uPlot WebJar's version; the server's pom names the same. */
  static final String UPLOT_VERSION = "1.6.30";

  private static final String OWN = "/io/windowpane/server/dashboard/";
  private static final String UPLOT = "/META-INF/resources/webjars/uplot/" + UPLOT_VERSION + "/";
  private static final String HTML = "text/html; charset=utf-8";
  private static final String JS = "text/javascript; charset=utf-8";
  private static final String CSS = "text/css; charset=utf-8";
  private static final String TEXT = "text/plain; charset=utf-8";
  /** Only what the page loads from this origin; fetches go to the same origin only. */
  private static final String CSP = "default-src 'none'; script-src 'self'; connect-src 'self';"
      + " style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none';"
      + " frame-ancestors 'none'";

  private record Asset(byte[] bytes, String contentType) {}

  private final Service service;
  private final Asset page;
  private final Map<String, Asset> assets;

  DashboardApi(Service service) {
    this.service = service;
    this.page = asset(OWN + "index.html", HTML);
    this.assets = Map.of(
        "dashboard.js", asset(OWN + "dashboard.js", JS),
        "dashboard.css", asset(OWN + "dashboard.css", CSS),
        "uPlot.iife.min.js", asset(UPLOT + "dist/uPlot.iife.min.js", JS),
        "uPlot.min.css", asset(UPLOT + "dist/uPlot.min.css", CSS),
        "uPlot.LICENSE.txt", asset(UPLOT + "LICENSE", TEXT));
  }

  /** Whether {@code path} is the page or one of its assets, which need no token. */
  static boolean isOpen(String path) {
    return path.equals("/dashboard") || path.startsWith("/dashboard/");
  }

  void register(RoutesConfig routes) {
    routes.get("/dashboard", ctx -> {
      service.onlyQuery(ctx, Set.of());
      serve(ctx, page);
    });
    routes.get("/dashboard/{asset}", ctx -> {
      Asset asset = assets.get(ctx.pathParam("asset"));
      if (asset == null) {
        throw new ApiError(404, "not_found", null, "no such dashboard asset");
      }
      serve(ctx, asset);
    });
    routes.get("/v1/dashboard/feed", this::feed);
  }

  private static void serve(Context ctx, Asset asset) {
    ctx.header("Content-Security-Policy", CSP);
    ctx.header("X-Content-Type-Options", "nosniff");
    ctx.header("Referrer-Policy", "no-referrer");
    ctx.header("Cache-Control", "no-cache");
    ctx.contentType(asset.contentType).result(asset.bytes);
  }

  /**
   * Totals since the service started, read from its meters now: each limiter's decisions, each
   * engine operation's calls and time, errors by code. Rates are the page's work (two polls).
   * With {@code history=true}, also the last five minutes per second ({@link DashboardHistory}).
   */
  private void feed(Context ctx) {
    service.onlyQuery(ctx, Set.of("history"));
    String history = ctx.queryParam("history");
    if (history != null && !history.equals("true") && !history.equals("false")) {
      throw ApiError.invalid("history", "history must be true or false, was '" + history + "'");
    }
    ServiceMetrics metrics = service.metrics();
    ObjectNode body = Json.object();
    body.put("engine", service.engineName());
    body.put("uptimeMillis", java.lang.management.ManagementFactory.getRuntimeMXBean()
        .getUptime());
    ArrayNode limiters = body.putArray("limiters");
    for (LimiterEntry entry : service.catalog().limiters().values()) {
      ServiceMetrics.DecisionTotals t = metrics.decisionTotals(entry.name());
      ObjectNode l = limiters.addObject();
      l.put("name", entry.name());
      l.put("shadow", entry.shadow());
      l.put("allowed", t.allowed());
      l.put("denied", t.denied());
      l.put("wouldDeny", t.wouldDeny());
      l.put("degraded", t.degraded());
    }
    ArrayNode backend = body.putArray("backend");
    for (ServiceMetrics.BackendTotals t : metrics.backendTotals()) {
      ObjectNode b = backend.addObject();
      b.put("operation", t.operation());
      b.put("calls", t.ok() + t.errors());
      b.put("errors", t.errors());
      b.put("totalMillis", t.totalMillis());
      b.put("maxMillis", t.maxMillis());
    }
    ObjectNode errors = body.putObject("errors");
    metrics.errorTotals().forEach(errors::put);
    if ("true".equals(history)) {
      metrics.history().write(body.putObject("history"));
    }
    Replies.json(ctx, 200, body);
  }

  private static Asset asset(String path, String contentType) {
    try (InputStream in = DashboardApi.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(path + " is missing from the jar; build with Maven");
      }
      return new Asset(in.readAllBytes(), contentType);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
