package io.windowpane.internal.lock;

import io.windowpane.WindowpaneException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/** The blocking forms of the lock API: waits on a store's stage and rethrows its failure. */
public final class Waiting {

  private Waiting() {}

  /**
   * The stage's value. Waits without being interrupted (an interrupt is kept for later): the
   * store's stages complete within the engine's timeouts, and giving up early could leave a
   * lock taken that nobody knows of. A failure is rethrown as it is if unchecked (a
   * {@link WindowpaneException} from the engine), else wrapped in one.
   */
  public static <T> T await(CompletionStage<T> stage) {
    Future<T> future = stage.toCompletableFuture();
    boolean interrupted = false;
    try {
      for (;;) {
        try {
          return future.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          throw unchecked(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** {@code failure} without the wrappers of futures, as an unchecked exception. */
  public static RuntimeException unchecked(Throwable failure) {
    while ((failure instanceof CompletionException || failure instanceof ExecutionException)
        && failure.getCause() != null) {
      failure = failure.getCause();
    }
    if (failure instanceof RuntimeException) {
      return (RuntimeException) failure;
    }
    if (failure instanceof Error) {
      throw (Error) failure;
    }
    return new WindowpaneException("lock call failed: " + failure, failure);
  }
}
