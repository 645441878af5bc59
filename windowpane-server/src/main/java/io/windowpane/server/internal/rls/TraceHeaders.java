package io.windowpane.server.internal.rls;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;

/**
 * Keeps a call's metadata in the gRPC {@link Context} while the service handles it, so that a
 * decision's span can join the trace of the caller's W3C {@code traceparent} (Envoy sends it
 * when its own tracing is on). Installed only when tracing is.
 */
final class TraceHeaders implements ServerInterceptor {

  static final Context.Key<Metadata> HEADERS = Context.key("windowpane-trace-headers");

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    return Contexts.interceptCall(Context.current().withValue(HEADERS, headers), call, headers,
        next);
  }

  /** The value of {@code key} in {@code headers}, null when absent (or no headers). */
  static String get(Metadata headers, String key) {
    return headers == null ? null
        : headers.get(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER));
  }
}
