package io.windowpane.redis.internal;

import java.util.concurrent.CompletableFuture;

/**
 * The one seam between the engine and its Redis client: call a function of the windowpane
 * library, read the server's clock, close. Client library types stay behind it.
 */
public interface RedisSeam extends AutoCloseable {

  /** Whether calls run through FCALL (true) or EVALSHA (false). */
  boolean functions();

  /** Calls {@code function} with an integer reply. */
  CompletableFuture<Long> callInteger(String function, String[] keys, String[] args);

  /** Calls {@code function} with an array-of-integers reply. */
  CompletableFuture<java.util.List<Long>> callIntegers(String function, String[] keys,
      String[] args);

  /**
   * Calls {@code function} with an array reply of integers ({@link Long}) and bulk strings
   * ({@link String}).
   */
  CompletableFuture<java.util.List<Object>> callList(String function, String[] keys,
      String[] args);

  /** The server's time in milliseconds ({@code TIME}), for skew measurement. */
  CompletableFuture<Long> serverMillis();

  /** Schedules {@code task} every {@code periodMillis} on the client's event executors. */
  AutoCloseable every(long periodMillis, Runnable task);

  @Override
  void close();
}
