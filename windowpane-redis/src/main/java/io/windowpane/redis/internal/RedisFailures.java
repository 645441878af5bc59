package io.windowpane.redis.internal;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.windowpane.CapacityExceededException;
import io.windowpane.WindowpaneException;
import io.windowpane.WindowpaneTimeoutException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Classifies Redis errors and turns client exceptions into the engine's exceptions. */
final class RedisFailures {

  private RedisFailures() {}

  static boolean isUnknownCommand(Throwable e) {
    return errorStartsWith(e, "ERR unknown command");
  }

  static boolean isFunctionNotFound(Throwable e) {
    return e instanceof RedisCommandExecutionException
        && String.valueOf(e.getMessage()).contains("Function not found");
  }

  static boolean isTryAgain(Throwable e) {
    return errorStartsWith(e, "TRYAGAIN");
  }

  static boolean isNoScript(Throwable e) {
    return errorStartsWith(e, "NOSCRIPT");
  }

  /**
   * A function touched a key that this cluster node does not serve (a batch's extra keys after
   * the slot moved or while it migrates): raised before the function wrote anything.
   */
  static boolean isNonLocalKey(Throwable e) {
    return e instanceof RedisCommandExecutionException
        && String.valueOf(e.getMessage()).contains("non local key");
  }

  /** An exact statistics window refused a record: it holds its maxValues already. */
  static boolean isFull(Throwable e) {
    return errorStartsWith(e, "WPFULL");
  }

  /** Whether {@code e} is an error reply from Redis starting with {@code prefix}. */
  private static boolean errorStartsWith(Throwable e, String prefix) {
    return e instanceof RedisCommandExecutionException
        && String.valueOf(e.getMessage()).startsWith(prefix);
  }

  /** The cause of a failed future, without the wrappers futures add. */
  static Throwable unwrap(Throwable e) {
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /**
   * {@code e} as the engine's exception: {@link WindowpaneTimeoutException} for a timeout,
   * {@link CapacityExceededException} for a full exact window ({@code WPFULL}),
   * {@link io.windowpane.KeyCreationRefusedException} for a key the memory guard kept from being
   * created ({@code WPNOKEY}),
   * {@link WindowpaneException} for anything else, with {@code what} and Redis's message.
   */
  static WindowpaneException translate(String what, Throwable e) {
    Throwable cause = unwrap(e);
    if (cause instanceof WindowpaneException) {
      return (WindowpaneException) cause;
    }
    if (cause instanceof RedisCommandTimeoutException) {
      return new WindowpaneTimeoutException(what + ": Redis did not answer in time ("
          + cause.getMessage() + ")", cause);
    }
    if (errorStartsWith(cause, "WPNOKEY")) {
      io.windowpane.KeyCreationRefusedException refused =
          new io.windowpane.KeyCreationRefusedException(what + ": "
              + cause.getMessage().substring("WPNOKEY ".length()));
      refused.initCause(cause);
      return refused;
    }
    if (isFull(cause)) {
      CapacityExceededException full = new CapacityExceededException(what + ": "
          + cause.getMessage().substring("WPFULL ".length()));
      full.initCause(cause);
      return full;
    }
    return new WindowpaneException(what + ": " + cause.getMessage(), cause);
  }
}
