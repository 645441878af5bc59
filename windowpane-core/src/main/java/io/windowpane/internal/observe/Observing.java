package io.windowpane.internal.observe;

import io.windowpane.Decision;
import io.windowpane.spi.EngineObserver;

/*
 * Calls into a user's EngineObserver, dropping what it throws: an observer's failure is never a
 * decision's failure (the contract in EngineObserver). Only reached when an observer other than
 * EngineObserver.NONE is installed.
 */
public final class Observing {

  private Observing() {}

  /** {@link EngineObserver#parent()}, or null if it throws. */
  public static Object parent(EngineObserver o) {
    try {
      return o.parent();
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** {@link EngineObserver#callStarted}, or null if it throws. */
  public static Object started(EngineObserver o, Object parent, String member, String operation,
      boolean fallback) {
    try {
      return o.callStarted(parent, member, operation, fallback);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** {@link EngineObserver#callEnded}, unwrapping completion wrappers from {@code failure}. */
  public static void ended(EngineObserver o, Object call, Throwable failure) {
    try {
      o.callEnded(call, unwrap(failure));
    } catch (RuntimeException ignored) {
      // an observer's failure is not the call's
    }
  }

  /** {@link EngineObserver#decided}. */
  public static void decided(EngineObserver o, Object parent, String limiter, Decision d) {
    try {
      o.decided(parent, limiter, d);
    } catch (RuntimeException ignored) {
      // an observer's failure is not the decision's
    }
  }

  /**
   * {@code op} as one call of {@code member} named {@code operation}, under the caller's
   * context read now.
   */
  public static <T> java.util.concurrent.CompletionStage<T> call(EngineObserver o, String member,
      String operation, java.util.function.Supplier<java.util.concurrent.CompletionStage<T>> op) {
    Object call = started(o, parent(o), member, operation, false);
    java.util.concurrent.CompletionStage<T> stage;
    try {
      stage = op.get();
    } catch (RuntimeException e) {
      ended(o, call, e);
      throw e;
    }
    return stage.whenComplete((v, e) -> ended(o, call, e));
  }

  static Throwable unwrap(Throwable e) {
    while ((e instanceof java.util.concurrent.CompletionException
        || e instanceof java.util.concurrent.ExecutionException) && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
