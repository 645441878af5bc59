package io.windowpane.server.internal.rls;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.micrometer.core.instrument.MeterRegistry;
import io.windowpane.MillisClock;
import io.windowpane.Windowpane;
import io.windowpane.server.internal.Auth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Envoy's rate limit service ({@code envoy.service.ratelimit.v3.RateLimitService}) over gRPC,
 * beside the HTTP API, on the same engine: docs/envoy.md. With tokens configured, every call
 * must carry the metadata {@code authorization: Bearer <token>} (the HTTP API's tokens), else it
 * fails with {@code UNAUTHENTICATED} before anything is decided. Thread-safe.
 */
public final class RlsServer implements AutoCloseable {

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final Server server;
  private final Duration shutdownTimeout;
  private final RlsReloader reloader;

  private RlsServer(Server server, Duration shutdownTimeout, RlsReloader reloader) {
    this.server = server;
    this.shutdownTimeout = shutdownTimeout;
    this.reloader = reloader;
  }

  /**
   * Serves the rules under {@code rulesPath} (a file or a directory, see {@link RlsConfig#load}),
   * bound to {@code wp}, on {@code host:port} (0: a free port); meters go to {@code registry}.
   * The rules are loaded again when their files change, checked every {@code reloadInterval}
   * (zero: never); a change that does not load is logged and the rules in force stay. Each
   * request is a span of {@code tracing} (docs/observability.md).
   *
   * @throws io.windowpane.config.ConfigException naming the file and field of a bad rule
   * @throws UncheckedIOException when the address cannot be bound
   */
  public static RlsServer start(String host, int port, Path rulesPath, Windowpane wp,
      List<String> tokens, MeterRegistry registry, MillisClock clock, Duration shutdownTimeout,
      Duration reloadInterval, io.windowpane.server.internal.Tracing tracing)
      throws io.windowpane.config.ConfigException {
    byte[] seen = RlsReloader.fingerprint(rulesPath); // before loading: a change meanwhile shows
    RlsConfig rules = RlsConfig.load(rulesPath).bind(wp);
    RlsService service = new RlsService(wp, rules, new RlsOverrides(wp),
        new RlsMetrics(registry), clock, tracing);
    Auth auth = new Auth(tokens);
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
        .directExecutor()
        .maxInboundMessageSize(1 << 20)
        .addService(tracing.on()
            ? ServerInterceptors.intercept(RateLimitServiceGrpc.bindService(service),
                new TokenCheck(auth), new TraceHeaders())
            : ServerInterceptors.intercept(RateLimitServiceGrpc.bindService(service),
                new TokenCheck(auth)))
        .build();
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve gRPC on " + host + ":" + port + ": "
          + e.getMessage(), e);
    }
    return new RlsServer(server, shutdownTimeout,
        new RlsReloader(rulesPath, wp, service, seen, reloadInterval));
  }

  /**
   * Loads the rules again now if their files changed (what the background check does every
   * reload interval): true when new rules are in force, false when nothing changed.
   *
   * @throws IllegalArgumentException naming the file and field when the changed rules do not
   *     load; the rules in force stay
   */
  public boolean reloadRules() {
    return reloader.checkNow();
  }

  /** The port it listens on. */
  public int port() {
    return server.getPort();
  }

  /** Stops taking calls, lets calls in flight finish for up to the shutdown timeout. */
  @Override
  public void close() {
    reloader.close();
    server.shutdown();
    try {
      if (!server.awaitTermination(shutdownTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Refuses a call without an accepted bearer token, when tokens are configured: the RLS and
   * RLQS services share it.
   */
  public static final class TokenCheck implements ServerInterceptor {
    private final Auth auth;

    public TokenCheck(Auth auth) {
      this.auth = auth;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
        ServerCallHandler<Q, R> next) {
      if (auth.enabled() && !auth.accepts(headers.get(AUTHORIZATION))) {
        call.close(Status.UNAUTHENTICATED.withDescription(
            "this service needs a token: send the metadata 'authorization: Bearer <token>'"),
            new Metadata());
        return new ServerCall.Listener<>() {};
      }
      return next.startCall(call, headers);
    }
  }
}
