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

  /**
   * Calls {@code function} with a reply that is an integer ({@link Long}) or an array of
   * integers ({@code List<Long>}), as {@code wp_take}'s.
   */
  CompletableFuture<Object> callIntegerOrIntegers(String function, String[] keys, String[] args);

  /** Calls {@code function} with an array-of-integers reply. */
  CompletableFuture<java.util.List<Long>> callIntegers(String function, String[] keys,
      String[] args);

  /**
   * Calls {@code function} with an array reply of integers ({@link Long}) and bulk strings
   * ({@link String}).
   */
  CompletableFuture<java.util.List<Object>> callList(String function, String[] keys,
      String[] args);

  /**
   * The hash slot of {@code key} on a Redis Cluster; 0 on one server, where every key lies in
   * one place.
   */
  int slot(String key);

  /**
   * Where a batch may send the items whose keys lie in {@code slot} together, in one call: the
   * same value for every slot of one cluster node when calls run through Functions (whose batch
   * functions may touch keys of several slots of the node they run on), else one value per
   * slot; one value for everything on one server. As far as the client's view of the topology
   * knows: a call routed by an older view fails before it writes, and is sent again by slot.
   */
  Object batchRoute(int slot);

  /**
   * The primary that serves {@code key}: its node id on a Redis Cluster (as the client's view of
   * the topology knows it), "" on one server.
   */
  String nodeOf(String key);

  /**
   * One primary's {@code INFO memory} and {@code INFO stats}: node id ("" on one server); or,
   * where the primary answered {@code INFO} with an error (an ACL user without {@code +info}),
   * {@code info} null and that error in {@code refusal}.
   */
  record NodeInfo(String node, String address, String info, String refusal) {}

  /** {@code INFO memory} and {@code INFO stats} of every primary (for the memory guard). */
  CompletableFuture<java.util.List<NodeInfo>> primariesInfo();

  /** Counts {@code items} batch items refused because they would have created a key. */
  default void refusedCreations(int items) {}

  /**
   * Whether a write to {@code key} must create no key: its primary is under memory pressure
   * (the memory guard's flag is on for calls bound there). False without a guard.
   */
  default boolean noNewKeys(String key) {
    return false;
  }

  /** How many of {@code keys} exist ({@code EXISTS}; on a cluster, keys of one slot). */
  CompletableFuture<Long> exists(String[] keys);

  /** The server's time in milliseconds ({@code TIME}), for skew measurement. */
  CompletableFuture<Long> serverMillis();

  /** Schedules {@code task} every {@code periodMillis} on the client's event executors. */
  AutoCloseable every(long periodMillis, Runnable task);

  @Override
  void close();
}
