package io.windowpane.server;

import io.javalin.Javalin;
import io.windowpane.Failover;
import io.windowpane.MillisClock;
import io.windowpane.Windowpane;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.server.internal.ConfigReloader;
import io.windowpane.server.internal.Service;
import io.windowpane.server.internal.ServiceMetrics;
import io.windowpane.server.internal.Tracing;
import io.windowpane.server.internal.rlqs.RlqsServer;
import io.windowpane.server.internal.rls.RlsServer;
import io.windowpane.spi.Engine;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A running windowpane service: the HTTP JSON API of {@code docs/server.md} over one engine or
 * a failover chain of engines.
 *
 * <pre>{@code
 * try (WindowpaneServer server = WindowpaneServer.start(ServerConfig.defaults().withPort(0))) {
 *   System.out.println(server.url());   // http://127.0.0.1:<free port>
 * }
 * }</pre>
 *
 * <p>{@link #close()} stops accepting connections, lets requests in flight finish for up to the
 * configured {@code shutdownTimeout}, then closes the engine. Thread-safe.
 */
public final class WindowpaneServer implements AutoCloseable {

  private final Javalin app;
  private final Windowpane windowpane;
  private final ServiceMetrics metrics;
  private final String host;
  private final List<String> routes;
  private final RlsServer rls;
  private final RlqsServer rlqs;
  private final ConfigReloader reloader; // null: not started from a file
  private final Tracing tracing;
  private boolean closed;

  private WindowpaneServer(Javalin app, Windowpane windowpane, ServiceMetrics metrics,
      String host, List<String> routes, RlsServer rls, RlqsServer rlqs,
      ConfigReloader reloader, Tracing tracing) {
    this.tracing = tracing;
    this.rls = rls;
    this.rlqs = rlqs;
    this.reloader = reloader;
    this.app = app;
    this.windowpane = windowpane;
    this.metrics = metrics;
    this.host = host;
    this.routes = routes;
  }

  /** Opens the configured engine (or chain) and serves it on the configured address. */
  public static WindowpaneServer start(ServerConfig config) {
    return start(config, config.engine().openEngine(), MillisClock.system());
  }

  /**
   * Serves {@code engine} (which the server then owns and closes) on the configured address,
   * with {@code clock} as the service's clock for reset times. A {@link Failover} chain has its
   * members reported on {@code /health} and {@code /metrics}. With tracing configured
   * ({@link ServerConfig#otlpEndpoint()}), each decision is a span with a child per backend
   * call (docs/observability.md).
   */
  public static WindowpaneServer start(ServerConfig config, Engine engine, MillisClock clock) {
    Tracing tracing = Tracing.of(config);
    return start(config, Windowpane.using(engine, tracing.observer()),
        engine instanceof Failover ? (Failover) engine : null, clock, tracing);
  }

  /**
   * Serves {@code windowpane} (which the server then owns and closes) on the configured address,
   * with {@code clock} as the service's clock for reset times: tests pass the engine's manual
   * clock. With tracing configured, decisions are spans, without children: the backend calls
   * of a {@code Windowpane} are seen only when it was built with an observer
   * ({@link #start(ServerConfig, Engine, MillisClock)} does).
   */
  public static WindowpaneServer start(ServerConfig config, Windowpane windowpane,
      MillisClock clock) {
    return start(config, windowpane, null, clock, Tracing.of(config));
  }

  private static WindowpaneServer start(ServerConfig config, Windowpane windowpane,
      Failover chain, MillisClock clock, Tracing tracing) {
    ServiceMetrics metrics = new ServiceMetrics();
    RlsServer rls = null;
    RlqsServer rlqs = null;
    ConfigReloader reloader = null;
    try {
      List<String> routes = new CopyOnWriteArrayList<>();
      Service service = new Service(config, windowpane, chain, clock, metrics, tracing);
      Javalin app = service.create(config.shutdownTimeout().toMillis(), routes);
      if (config.grpcPort().isPresent()) {
        rls = startRls(config, windowpane, metrics, clock, tracing);
      }
      try {
        if (config.rlqsPort().isPresent()) {
          rlqs = startRlqs(config, windowpane, metrics, clock);
        }
        app.start(config.host(), config.port());
      } catch (RuntimeException e) {
        if (rls != null) {
          rls.close();
        }
        if (rlqs != null) {
          rlqs.close();
        }
        throw e;
      }
      if (config.file().isPresent()) {
        reloader = new ConfigReloader(config, service);
      }
      return new WindowpaneServer(app, windowpane, metrics, config.host(), List.copyOf(routes),
          rls, rlqs, reloader, tracing);
    } catch (RuntimeException e) {
      metrics.close();
      windowpane.close();
      tracing.close();
      throw e;
    }
  }

  /** The Envoy rate limit service of {@code config} on its gRPC port (docs/envoy.md). */
  private static RlsServer startRls(ServerConfig config, Windowpane windowpane,
      ServiceMetrics metrics, MillisClock clock, Tracing tracing) {
    try {
      return RlsServer.start(config.host(), config.grpcPort().getAsInt(),
          config.rlsConfig().orElseThrow(), windowpane, config.tokens(), metrics.registry(),
          clock, config.shutdownTimeout(), config.rlsReloadInterval(), tracing);
    } catch (io.windowpane.config.ConfigException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** The Envoy rate limit quota service of {@code config} on its gRPC port (docs/envoy.md). */
  private static RlqsServer startRlqs(ServerConfig config, Windowpane windowpane,
      ServiceMetrics metrics, MillisClock clock) {
    try {
      return RlqsServer.start(config.host(), config.rlqsPort().getAsInt(),
          config.rlqsConfig().orElseThrow(), windowpane, config.tokens(), metrics.registry(),
          clock, config.shutdownTimeout());
    } catch (io.windowpane.config.ConfigException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /**
   * Loads the Envoy rate limit rules again now if their files changed (the service also checks
   * every {@code rls.reloadInterval} by itself): true when new rules are in force, false when
   * nothing changed or the service is off.
   *
   * @throws IllegalArgumentException naming the file and field when the changed rules do not
   *     load; the rules in force stay
   */
  public boolean reloadRlsRules() {
    return rls != null && rls.reloadRules();
  }

  /**
   * Loads the configuration file again now if it changed (the service also checks every
   * {@code server.reloadInterval} by itself) and applies its limiters' changed permits: every
   * key keeps its counts, and the next decision uses the new permits. Other changes (a limiter
   * added or removed, another window, counters, statistics, the server, auth, engine, rls,
   * rlqs or tracing sections) are logged and wait for a restart.
   *
   * @return the limiters whose permits changed; empty when nothing changed that applies at run
   *     time, or the service was not started from a file
   * @throws IllegalArgumentException naming the file and field when the changed file does not
   *     validate; the limits in force stay
   */
  public List<String> reloadConfig() {
    return reloader == null ? List.of() : reloader.checkNow();
  }

  /** The gRPC port of the Envoy rate limit service, when it is on. */
  public java.util.OptionalInt grpcPort() {
    return rls == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(rls.port());
  }

  /** The gRPC port of the Envoy rate limit quota service, when it is on. */
  public java.util.OptionalInt rlqsPort() {
    return rlqs == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(rlqs.port());
  }

  /** The port it listens on (the free port chosen when the configuration said 0). */
  public int port() {
    return app.port();
  }

  /** The base URL, e.g. {@code http://127.0.0.1:8080}. */
  public String url() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return "http://" + h + ":" + port();
  }

  /** Every route it serves, as "METHOD path", e.g. {@code POST /v1/limiters/{limiter}/acquire}. */
  public List<String> routes() {
    return routes;
  }

  /** The engine's name: local, redis, etcd, or failover for a chain. */
  public String engineName() {
    return windowpane.engineName();
  }

  /** Stops gracefully (see the class comment) and closes the engine. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (reloader != null) {
        reloader.close();
      }
      if (rls != null) {
        rls.close();
      }
      if (rlqs != null) {
        rlqs.close();
      }
      app.stop();
    } finally {
      try {
        windowpane.close();
      } finally {
        try {
          metrics.close();
        } finally {
          tracing.close(); // sends the spans not sent yet
        }
      }
    }
  }
}
