package io.windowpane.server.internal;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.windowpane.Failover;
import io.windowpane.MillisClock;
import io.windowpane.Windowpane;
import io.windowpane.config.EngineConfig.OnFailure;
import io.windowpane.server.config.ServerConfig;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.component.LifeCycle;

/*
 * The service behind `windowpane serve`: one Javalin (Jetty 12) application over one Windowpane.
 *
 * Failover. Over a chain (io.windowpane.Failover), the library routes each call to the first
 * healthy member and stamps each decision with the member that answered; when none can, the
 * chain's own OnFailure (engine.onFailure) answers. The service then only relays: it has no
 * degraded answer of its own (its onFailure is ERROR), replies carry Decision.engine() and
 * degraded(), /health reports the members, and ServiceMetrics reads the chain on each scrape.
 * Over a single engine, engine.onFailure is the service's own answer, as before chains existed.
 *
 * Request path. A handler looks the name up in the Catalog, reads and checks the whole body
 * (JsonBody; any refusal is an ApiError thrown before the engine is called, so a refused request
 * records nothing), then calls the engine's async method through Backend: Jetty's thread is
 * released while Redis answers, and the reply is written from the engine's callback. The local
 * engine answers at once and the reply is written inline.
 *
 * Around it: a before-handler checks the bearer token on /v1 and /metrics (Auth; the dashboard's
 * page and assets hold no data and are open, its numbers come from /v1); every failure,
 * Javalin's own 404/405/413 included, goes through Replies into one JSON error shape; Jetty's
 * GracefulHandler lets in-flight requests finish on stop, for up to shutdownTimeout.
 */
public final class Service {

  /**
   * How long an idle keep-alive connection may stay open once the service stops (Jetty's default
   * is 1 s, which every stop paid while a client kept a connection open). A request in flight is
   * not idle: GracefulHandler waits for it up to shutdownTimeout (GracefulShutdownIT holds one
   * for 1.5 s).
   */
  private static final long IDLE_CONNECTION_ON_STOP_MILLIS = 50;

  private static final Set<String> HTTP_METHODS = Set.of("GET", "POST", "PUT", "DELETE", "PATCH");

  private final Windowpane windowpane;
  private final MillisClock clock;
  private final ServiceMetrics metrics;
  private final Replies replies;
  private final Backend backend;
  private final Catalog catalog;
  private final Limits limits;
  private final Auth auth;
  private final OnFailure onFailure;
  private final Failover chain;
  private final Tracing tracing;

  /**
   * The service over {@code windowpane}; {@code chain} is its engine when that is a failover
   * chain (else null): then {@code /health} and {@code /metrics} report its members, and its
   * own last resort answers when no member can, so the service adds no degraded answer of its
   * own.
   */
  public Service(ServerConfig config, Windowpane windowpane, Failover chain, MillisClock clock,
      ServiceMetrics metrics) {
    this(config, windowpane, chain, clock, metrics, Tracing.OFF);
  }

  /** The service as above, each decision a span of {@code tracing}. */
  public Service(ServerConfig config, Windowpane windowpane, Failover chain, MillisClock clock,
      ServiceMetrics metrics, Tracing tracing) {
    this.tracing = tracing;
    this.windowpane = windowpane;
    this.chain = chain;
    this.clock = clock;
    this.metrics = metrics;
    this.limits = new Limits(config.maxBodyBytes(), config.maxKeyLength(), config.maxBatch());
    this.replies = new Replies(metrics, windowpane.engineName(), limits.maxBodyBytes());
    this.backend = new Backend(metrics, replies);
    this.catalog = new Catalog(windowpane, config.limiters(), config.shadowLimiters(),
        config.counters(), config.stats(), config.topKeys());
    this.auth = new Auth(config.tokens());
    this.onFailure = chain != null ? OnFailure.ERROR : config.engine().onFailure();
    if (chain != null) {
      metrics.failover(chain);
    }
    metrics.memory(windowpane);
    catalog.limiters().forEach((name, entry) -> metrics.leasing(name, entry.limiter()));
  }

  /** The Javalin application, not started; {@code routes} receives "METHOD path" of each. */
  public Javalin create(long shutdownTimeoutMillis, List<String> routes) {
    return Javalin.create(cfg -> {
      cfg.events.handlerAdded(info -> {
        if (HTTP_METHODS.contains(info.getHttpMethod().name())) {
          routes.add(info.getHttpMethod().name() + " " + info.getPath());
        }
      });
      cfg.startup.showJavalinBanner = false;
      cfg.startup.showOldJavalinVersionWarning = false;
      cfg.http.maxRequestSize = limits.maxBodyBytes();
      cfg.http.prefer405over404 = true;
      cfg.jetty.modifyServer(server -> {
        server.setHandler(new GracefulHandler());
        server.setStopTimeout(shutdownTimeoutMillis);
        server.addEventListener(new LifeCycle.Listener() {
          @Override
          public void lifeCycleStarted(LifeCycle started) {
            for (Connector connector : server.getConnectors()) {
              if (connector instanceof AbstractConnector c) {
                c.setShutdownIdleTimeout(IDLE_CONNECTION_ON_STOP_MILLIS);
              }
            }
          }
        });
      });
      cfg.routes.before(this::authenticate);
      new LimiterApi(this).register(cfg.routes);
      new CounterApi(this).register(cfg.routes);
      new StatsApi(this).register(cfg.routes);
      new OpsApi(this).register(cfg.routes);
      new DashboardApi(this).register(cfg.routes);
      cfg.routes.exception(HttpResponseException.class, (e, ctx) -> replies.failure(ctx, e));
      cfg.routes.exception(Exception.class, (e, ctx) -> replies.failure(ctx, e));
    });
  }

  private void authenticate(Context ctx) {
    if (!auth.enabled()) {
      return;
    }
    String path = ctx.path();
    boolean open = path.equals("/health") || path.equals("/health/live")
        || path.equals("/v1/openapi.yaml") || DashboardApi.isOpen(path);
    if (!open && !auth.accepts(ctx.header("Authorization"))) {
      throw new ApiError(401, "unauthorized", null,
          "this service needs a token: send 'Authorization: Bearer <token>'");
    }
  }

  /** The request body as a JSON object with only {@code fields}, within the size limit. */
  JsonBody body(Context ctx, Set<String> fields) {
    onlyQuery(ctx, Set.of());
    long declared = ctx.contentLength();
    if (declared > limits.maxBodyBytes()) {
      throw replies.tooLarge(declared);
    }
    return JsonBody.parse(ctx.bodyAsBytes(), limits, fields);
  }

  /** The {@code key} query parameter, checked, when the query may hold only {@code params}. */
  String queryKey(Context ctx, Set<String> params) {
    onlyQuery(ctx, params);
    return Limits.checkKey("key", ctx.queryParam("key"), limits.maxKeyLength());
  }

  /** Refuses query parameters other than {@code params}, and any given twice. */
  void onlyQuery(Context ctx, Set<String> params) {
    ctx.queryParamMap().forEach((name, values) -> {
      if (!params.contains(name)) {
        throw ApiError.invalid(name, "unknown query parameter '" + name + "'; "
            + (params.isEmpty() ? "this operation takes none"
                : "allowed: " + String.join(", ", new java.util.TreeSet<>(params))));
      }
      if (values.size() > 1) {
        throw ApiError.invalid(name, name + " must be given once");
      }
    });
  }

  Windowpane windowpane() {
    return windowpane;
  }

  String engineName() {
    return windowpane.engineName();
  }

  MillisClock clock() {
    return clock;
  }

  ServiceMetrics metrics() {
    return metrics;
  }

  Replies replies() {
    return replies;
  }

  Tracing tracing() {
    return tracing;
  }

  Backend backend() {
    return backend;
  }

  /**
   * Applies the limiters of {@code next}, the configuration file read again (see
   * {@link Catalog#apply}).
   */
  public Catalog.Applied apply(ServerConfig next) {
    return catalog.apply(next.limiters(), next.shadowLimiters(), next.counters(), next.stats());
  }

  Catalog catalog() {
    return catalog;
  }

  Limits limits() {
    return limits;
  }

  /** The service's own answer to a failed acquire: {@code ERROR} over a chain. */
  OnFailure onFailure() {
    return onFailure;
  }

  /** The failover chain, or empty for a single engine. */
  Optional<Failover> chain() {
    return Optional.ofNullable(chain);
  }
}
