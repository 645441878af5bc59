package io.windowpane.redis.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting on and combining the futures of calls. */
public final class Calls {

  private Calls() {}

  /**
   * Waits for {@code future}: the client's command timeout completes it; {@code guardMillis}
   * only bounds the wait should the client ever fail to.
   */
  static <T> T await(CompletableFuture<T> future, long guardMillis, String what) {
    try {
      return future.get(guardMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw RedisFailures.translate(what + " interrupted", e);
    } catch (TimeoutException e) {
      future.cancel(false);
      throw new io.windowpane.WindowpaneTimeoutException(
          what + ": no answer from Redis within " + guardMillis + " ms", e);
    } catch (Exception e) {
      throw RedisFailures.translate(what, e);
    }
  }

  /** The engine's exception for a failed async call. */
  public static <T> CompletableFuture<T> translated(CompletableFuture<T> future, String what) {
    return future.handle((v, e) -> {
      if (e != null) {
        throw RedisFailures.translate(what, e);
      }
      return v;
    });
  }

  /**
   * Whether the server still holds state under {@code keys}: one {@code wp_holds} call with
   * {@code args} (its slot 0, the time, filled in here on a copy).
   */
  static boolean holds(RedisSeam seam, TimeArg time, long guardMillis, String[] keys,
      String[] args) {
    String[] call = args.clone();
    call[0] = time.now();
    return await(seam.callInteger("wp_holds", keys, call), guardMillis, "holdsState") == 1;
  }
}
