package io.windowpane.server.internal.rlqs;

import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaServiceGrpc;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.windowpane.MillisClock;
import io.windowpane.Windowpane;
import io.windowpane.config.ConfigException;
import io.windowpane.server.internal.Auth;
import io.windowpane.server.internal.rls.RlsServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Envoy's rate limit quota service ({@code envoy.service.rate_limit_quota.v3}) over gRPC, on its
 * own port beside the HTTP API and the rate limit service, on the same engine: docs/envoy.md.
 * With tokens configured, every stream must carry the metadata
 * {@code authorization: Bearer <token>} (the HTTP API's tokens), else it fails with
 * {@code UNAUTHENTICATED} before any report is read. The buckets are read once, at start.
 * Thread-safe.
 */
public final class RlqsServer implements AutoCloseable {

  /** Longest wait for open streams on close. */
  static final long MAX_DRAIN_MILLIS = 1_000;

  private final Server server;
  private final Duration shutdownTimeout;

  private RlqsServer(Server server, Duration shutdownTimeout) {
    this.server = server;
    this.shutdownTimeout = shutdownTimeout;
  }

  /**
   * Serves the buckets under {@code bucketsPath} (a file or a directory, see
   * {@link RlqsConfig#load}), counted on {@code wp}, on {@code host:port} (0: a free port);
   * meters go to {@code registry}; {@code clock} dates reports (tests pass a manual one).
   *
   * @throws ConfigException naming the file and field of a bad bucket
   * @throws UncheckedIOException when the address cannot be bound
   */
  public static RlqsServer start(String host, int port, Path bucketsPath, Windowpane wp,
      List<String> tokens, MeterRegistry registry, MillisClock clock, Duration shutdownTimeout)
      throws ConfigException {
    RlqsConfig buckets = RlqsConfig.load(bucketsPath).bind(wp);
    RlqsService service = new RlqsService(buckets, new RlqsMetrics(registry), clock);
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
        .directExecutor()
        .maxInboundMessageSize(4 << 20)
        .addService(ServerInterceptors.intercept(RateLimitQuotaServiceGrpc.bindService(service),
            new RlsServer.TokenCheck(new Auth(tokens))))
        .build();
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve RLQS gRPC on " + host + ":" + port + ": "
          + e.getMessage(), e);
    }
    return new RlqsServer(server, shutdownTimeout);
  }

  /** The port it listens on. */
  public int port() {
    return server.getPort();
  }

  /**
   * Stops taking streams, lets messages in flight be answered for up to the shutdown timeout
   * (at most {@value #MAX_DRAIN_MILLIS} ms: report streams never end by themselves), then cuts
   * the streams. Envoys keep their assignments until these expire, and reconnect.
   */
  @Override
  public void close() {
    server.shutdown();
    try {
      long wait = Math.min(shutdownTimeout.toMillis(), MAX_DRAIN_MILLIS);
      if (!server.awaitTermination(wait, TimeUnit.MILLISECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
