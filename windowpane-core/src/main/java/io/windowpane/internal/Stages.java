package io.windowpane.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/** Helpers for engine calls made as stages. */
public final class Stages {

  private Stages() {}

  /**
   * Starts {@code call} and returns its stage; an engine that throws instead of answering with
   * a failed stage gives a failed stage too, so callers handle one failure path.
   */
  public static <T> CompletableFuture<T> call(Supplier<? extends CompletionStage<T>> call) {
    try {
      return call.get().toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
