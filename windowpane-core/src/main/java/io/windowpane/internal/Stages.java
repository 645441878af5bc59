package io.windowpane.internal;

import io.windowpane.KeyCreationRefusedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
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

  /**
   * {@link #items} for a blocking caller: {@code one} on each key in order, on the caller's
   * thread; throws what {@code items} fails with.
   */
  public static <T> List<T> itemsNow(String operation, List<String> keys,
      Function<String, T> one) {
    List<CompletableFuture<T>> each = new ArrayList<>(keys.size());
    for (String key : keys) {
      each.add(call(() -> CompletableFuture.completedFuture(one.apply(key))));
    }
    try {
      return items(operation, keys, each).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw e;
    }
  }

  /**
   * The answers of a batch of {@code operation} on {@code keys} sent as one call per item
   * ({@code each}, in order), once every item has completed: where some items were refused with
   * a {@link KeyCreationRefusedException} and none failed otherwise, a batch refusal carrying
   * the other items' answers ({@link KeyCreationRefusedException#answers()}); else the first
   * failure.
   */
  public static <T> CompletableFuture<List<T>> items(String operation, List<String> keys,
      List<CompletableFuture<T>> each) {
    return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0])).handle((x, e) -> {
      List<T> out = new ArrayList<>(each.size());
      KeyCreationRefusedException refused = null;
      for (CompletableFuture<T> f : each) {
        try {
          out.add(f.join());
        } catch (CompletionException failure) {
          if (!(failure.getCause() instanceof KeyCreationRefusedException k)) {
            throw failure;
          }
          refused = refused == null ? k : refused;
          out.add(null);
        }
      }
      if (refused != null) {
        throw KeyCreationRefusedException.ofBatch(operation, keys, out, refused.getMessage(),
            refused);
      }
      return out;
    });
  }
}
