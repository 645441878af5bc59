package io.windowpane.server.internal;

import io.javalin.http.Context;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Calls the engine without blocking a request thread: the engine's {@code CompletionStage} is
 * handed to Javalin as the request's future (Jetty releases the thread until it completes), and
 * the reply is written when it does. An answer that is already there (the in-process engine) is
 * written at once, without the async round. Each call is timed into
 * {@code windowpane_backend_seconds}.
 */
final class Backend {

  private final ServiceMetrics metrics;
  private final Replies replies;

  Backend(ServiceMetrics metrics, Replies replies) {
    this.metrics = metrics;
    this.replies = replies;
  }

  /** Calls the engine; {@code ok} writes the answer, failures become error replies. */
  <T> void call(Context ctx, String operation, Supplier<? extends CompletionStage<T>> call,
      Consumer<T> ok) {
    call(ctx, operation, call, ok, failure -> replies.failure(ctx, failure));
  }

  /** Calls the engine; {@code ok} writes the answer, {@code failed} writes a failure. */
  <T> void call(Context ctx, String operation, Supplier<? extends CompletionStage<T>> call,
      Consumer<T> ok, Consumer<Throwable> failed) {
    long start = System.nanoTime();
    CompletableFuture<T> future;
    try {
      future = call.get().toCompletableFuture();
    } catch (RuntimeException e) {
      future = CompletableFuture.failedFuture(e);
    }
    if (future.isDone()) {
      complete(operation, start, future.handle(Outcome::new).join(), ok, failed);
      return;
    }
    CompletableFuture<T> pending = future;
    ctx.future(() -> pending.handle((value, failure) -> {
      complete(operation, start, new Outcome<>(value, failure), ok, failed);
      return null;
    }));
  }

  private <T> void complete(String operation, long start, Outcome<T> outcome, Consumer<T> ok,
      Consumer<Throwable> failed) {
    if (outcome.failure == null) {
      metrics.backend(operation, true, System.nanoTime() - start);
      ok.accept(outcome.value);
    } else {
      if (Replies.isBackendFailure(outcome.failure)) {
        metrics.backend(operation, false, System.nanoTime() - start);
      }
      failed.accept(outcome.failure);
    }
  }

  private static final class Outcome<T> {
    final T value;
    final Throwable failure;

    Outcome(T value, Throwable failure) {
      this.value = value;
      this.failure = failure;
    }
  }
}
