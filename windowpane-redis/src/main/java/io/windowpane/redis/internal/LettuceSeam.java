package io.windowpane.redis.internal;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.windowpane.WindowpaneException;
import io.windowpane.redis.ScriptMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/*
 * Design note. One multiplexed Lettuce connection (standalone) or one cluster connection (which
 * routes each call by its first key's slot and follows MOVED/ASK itself) carries every call of
 * the engine, from every thread: commands issued back to back go out pipelined. Calls use the
 * async API only; the blocking forms of the engine wait on the returned future, which Lettuce's
 * TimeoutOptions complete exceptionally after the command timeout, and commands issued while the
 * connection is down are rejected at once (DisconnectedBehavior.REJECT_COMMANDS) instead of being
 * buffered, so a dead Redis costs at most the timeout, never a hang.
 *
 * Reconnecting. Lettuce reconnects a lost connection by itself, after delays that by default
 * double from 1 ms up to 30 s: after a restart a few seconds long, the connection would come back
 * seconds after Redis did, and every call meanwhile fails at once (REJECT_COMMANDS). The engine
 * gives its client its own resources whose delay doubles the same way but stops at
 * RECONNECT_DELAY_CAP (500 ms), so calls work again within about half a second of Redis
 * answering; attempts against a dead local port cost a refused connect each, two a second.
 *
 * Lettuce 7's maintenance notifications (a Redis Cloud feature probed at every handshake) are
 * switched off: they cost a command per connection and log a line per connection elsewhere.
 * Lettuce 6.8 (Spring Boot 4.0.x's) has no such API and no such notifications; the engine is
 * built against 7.x and runs on both, because MaintNotifications sets the option through
 * reflection looked up once, only where the class exists (its design note says why not a
 * direct call). Nothing else in the module needs Lettuce 7 (RedisEngine sets passwords with a
 * StaticCredentialsProvider: setAuthentication is 7-only): it compiles against 6.8.2 too (mvn
 * clean ... -Dlettuce.version=6.8.2.RELEASE; without clean the compiler keeps classes built
 * against 7.x), and examples/spring-boot-parent-demo checks every Lettuce reference of the
 * module against Spring Boot's Lettuce and runs the engine on it, in every build.
 *
 * Loading. In FUNCTIONS mode the library is checked on every primary at start (FCALL wp_version)
 * and loaded with FUNCTION LOAD REPLACE where it is absent or older; a newer library is left in
 * place (versions only add). A call answered "Function not found" (a node added or flushed since)
 * reloads the library on every primary and is repeated once. In EVALSHA mode a call answered
 * NOSCRIPT is repeated once with EVAL, which caches the script on that node again.
 */
public final class LettuceSeam implements RedisSeam {

  /** The longest pause between two reconnection attempts (Lettuce's default: 30 s). */
  static final Duration RECONNECT_DELAY_CAP = Duration.ofMillis(500);

  private static final int TRY_AGAIN_ATTEMPTS = 40;
  private static final long TRY_AGAIN_PAUSE_MILLIS = 5;

  private final AbstractRedisClient client;
  private final StatefulConnection<String, String> connection;
  private final RedisClusterAsyncCommands<String, String> async;
  private final Supplier<List<RedisCommands<String, String>>> primaries;
  private final FunctionLibrary library;
  private final boolean functions;
  /** host:port of the one server; unused on a cluster (set once, after construction). */
  private volatile String standaloneAddress = "";
  /** The cluster connection, whose partitions map slots to nodes; null on one server. */
  private final StatefulRedisClusterConnection<String, String> cluster;

  private LettuceSeam(AbstractRedisClient client, StatefulConnection<String, String> connection,
      RedisClusterAsyncCommands<String, String> async,
      Supplier<List<RedisCommands<String, String>>> primaries, FunctionLibrary library,
      ScriptMode mode) {
    this.client = client;
    this.connection = connection;
    this.cluster = connection instanceof StatefulRedisClusterConnection<String, String> c
        ? c : null;
    this.async = async;
    this.primaries = primaries;
    this.library = library;
    this.functions = chooseAndLoad(mode);
  }

  /** Connects to one Redis server (or a replica set's primary). */
  public static LettuceSeam standalone(RedisURI uri, Duration timeout, Duration connectTimeout,
      ScriptMode mode, FunctionLibrary library) {
    RedisClient client = RedisClient.create(resources());
    try {
      ClientOptions.Builder options = ClientOptions.builder();
      MaintNotifications.disable(options);
      client.setOptions(options
          .timeoutOptions(TimeoutOptions.enabled(timeout))
          .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .build());
      uri.setTimeout(timeout);
      StatefulRedisConnection<String, String> connection =
          client.connect(StringCodec.UTF8, uri);
      LettuceSeam seam = new LettuceSeam(client, connection, connection.async(),
          () -> List.of(connection.sync()), library, mode);
      seam.standaloneAddress = uri.getHost() + ":" + uri.getPort();
      return seam;
    } catch (RuntimeException e) {
      shutdown(client, 0, 0);
      throw RedisFailures.translate("cannot connect to Redis at " + uri.getHost() + ":"
          + uri.getPort(), e);
    }
  }

  /** Connects to a Redis Cluster through any of its nodes. */
  public static LettuceSeam cluster(List<RedisURI> seeds, Duration timeout,
      Duration connectTimeout, ScriptMode mode, FunctionLibrary library) {
    RedisClusterClient client = RedisClusterClient.create(resources(), seeds);
    try {
      ClusterClientOptions.Builder options = ClusterClientOptions.builder();
      MaintNotifications.disable(options);
      client.setOptions(options
          .timeoutOptions(TimeoutOptions.enabled(timeout))
          .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
              .enableAllAdaptiveRefreshTriggers()
              .build())
          .build());
      StatefulRedisClusterConnection<String, String> connection =
          client.connect(StringCodec.UTF8);
      connection.setTimeout(timeout);
      Supplier<List<RedisCommands<String, String>>> primaries = () -> {
        List<RedisCommands<String, String>> out = new ArrayList<>();
        for (RedisClusterNode node : connection.getPartitions()) {
          if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
            out.add(connection.getConnection(node.getNodeId()).sync());
          }
        }
        return out;
      };
      return new LettuceSeam(client, connection, connection.async(), primaries, library, mode);
    } catch (RuntimeException e) {
      shutdown(client, 0, 0);
      StringBuilder at = new StringBuilder(); // host:port only: never a password
      for (RedisURI seed : seeds) {
        at.append(at.length() == 0 ? "" : ", ").append(seed.getHost()).append(':')
            .append(seed.getPort());
      }
      throw RedisFailures.translate("cannot connect to the Redis Cluster at " + at, e);
    }
  }

  /**
   * The client's own threads and timers, with reconnection delays doubling from 1 ms to
   * {@link #RECONNECT_DELAY_CAP}; shut down with the client ({@link #shutdown}).
   */
  private static ClientResources resources() {
    return ClientResources.builder()
        .reconnectDelay(Delay.exponential(Duration.ZERO, RECONNECT_DELAY_CAP, 2,
            TimeUnit.MILLISECONDS))
        .build();
  }

  /** Shuts {@code client} down, then the resources it was given (a client leaves them). */
  private static void shutdown(AbstractRedisClient client, long quietMillis, long timeoutMillis) {
    ClientResources resources = client.getResources();
    try {
      client.shutdown(quietMillis, timeoutMillis, TimeUnit.MILLISECONDS);
    } finally {
      resources.shutdown(quietMillis, timeoutMillis, TimeUnit.MILLISECONDS)
          .awaitUninterruptibly(timeoutMillis + 1_000, TimeUnit.MILLISECONDS);
    }
  }

  private boolean chooseAndLoad(ScriptMode mode) {
    if (mode == ScriptMode.EVALSHA) {
      return false;
    }
    try {
      loadFunctions();
      return true;
    } catch (RedisCommandExecutionException e) {
      if (mode == ScriptMode.AUTO && RedisFailures.isUnknownCommand(e)) {
        return false; // Redis 6: no Functions
      }
      throw RedisFailures.translate("cannot load the windowpane function library", e);
    }
  }




  /** Loads the library on every primary where it is absent or older. */
  private synchronized void loadFunctions() {
    for (RedisCommands<String, String> node : primaries.get()) {
      long loaded;
      try {
        Long v = node.fcall("wp_version", ScriptOutputType.INTEGER);
        loaded = v == null ? 0 : v;
      } catch (RedisCommandExecutionException e) {
        if (!RedisFailures.isFunctionNotFound(e)) {
          throw e;
        }
        loaded = 0;
      }
      if (loaded < library.version()) {
        node.functionLoad(library.functionText(), true);
      }
    }
  }

  @Override
  public boolean functions() {
    return functions;
  }

  @Override
  public CompletableFuture<Long> callInteger(String function, String[] keys, String[] args) {
    return call(function, ScriptOutputType.INTEGER, keys, args);
  }

  @Override
  public CompletableFuture<Object> callIntegerOrIntegers(String function, String[] keys,
      String[] args) {
    return call(function, ScriptOutputType.OBJECT, keys, args);
  }

  @Override
  public CompletableFuture<List<Long>> callIntegers(String function, String[] keys,
      String[] args) {
    return call(function, ScriptOutputType.MULTI, keys, args);
  }

  @Override
  public CompletableFuture<List<Object>> callList(String function, String[] keys,
      String[] args) {
    return call(function, ScriptOutputType.MULTI, keys, args);
  }

  private <T> CompletableFuture<T> call(String function, ScriptOutputType type, String[] keys,
      String[] args) {
    return call(function, type, keys, args, 1, false);
  }

  /**
   * Sends one call; a failure that a repeat can mend is repeated: TRYAGAIN (a cluster slot half
   * migrated: the call was not run; Lettuce follows MOVED and ASK itself, not TRYAGAIN) after a
   * pause, up to {@link #TRY_AGAIN_ATTEMPTS} times; "Function not found" once, after loading the
   * library; NOSCRIPT once, as EVAL. The success path adds one dependent stage, nothing else.
   */
  private <T> CompletableFuture<T> call(String function, ScriptOutputType type, String[] keys,
      String[] args, int attempt, boolean reloaded) {
    return this.<T>send(function, type, keys, args, false).exceptionallyCompose(error -> {
      Throwable cause = RedisFailures.unwrap(error);
      if (RedisFailures.isTryAgain(cause) && attempt < TRY_AGAIN_ATTEMPTS) {
        return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(
            TRY_AGAIN_PAUSE_MILLIS, TimeUnit.MILLISECONDS))
            .thenCompose(v -> call(function, type, keys, args, attempt + 1, reloaded));
      }
      if (!reloaded && functions && RedisFailures.isFunctionNotFound(cause)) {
        // loading blocks: run it off the client's event loop
        return CompletableFuture.runAsync(this::loadFunctions)
            .thenCompose(v -> call(function, type, keys, args, attempt, true));
      }
      if (!reloaded && !functions && RedisFailures.isNoScript(cause)) {
        return this.<T>send(function, type, keys, args, true);
      }
      return CompletableFuture.failedFuture(cause);
    });
  }

  /** FCALL, or EVALSHA (EVAL with the whole text when {@code evalText}) with the name first. */
  private <T> CompletableFuture<T> send(String function, ScriptOutputType type, String[] keys,
      String[] args, boolean evalText) {
    if (functions) {
      return async.<T>fcall(function, type, keys, args).toCompletableFuture();
    }
    String[] evalArgs = new String[args.length + 1];
    evalArgs[0] = function;
    System.arraycopy(args, 0, evalArgs, 1, args.length);
    return (evalText
        ? async.<T>eval(library.evalText(), type, keys, evalArgs)
        : async.<T>evalsha(library.evalSha(), type, keys, evalArgs)).toCompletableFuture();
  }

  @Override
  public int slot(String key) {
    return cluster == null ? 0 : SlotHash.getSlot(key);
  }

  @Override
  public Object batchRoute(int slot) {
    if (cluster == null) {
      return "";
    }
    if (functions) {
      RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(slot);
      if (node != null) {
        return node.getNodeId();
      }
    }
    return slot;
  }

  @Override
  public String nodeOf(String key) {
    if (cluster == null) {
      return "";
    }
    RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
    return node == null ? "" : node.getNodeId();
  }

  @Override
  public CompletableFuture<List<NodeInfo>> primariesInfo() {
    if (cluster == null) {
      StatefulRedisConnection<String, String> one =
          (StatefulRedisConnection<String, String>) connection;
      return info(one.async(), "", standaloneAddress).thenApply(List::of);
    }
    List<CompletableFuture<NodeInfo>> each = new ArrayList<>();
    for (RedisClusterNode node : cluster.getPartitions()) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
        String address = node.getUri() == null ? node.getNodeId()
            : node.getUri().getHost() + ":" + node.getUri().getPort();
        each.add(cluster.getConnectionAsync(node.getNodeId()).thenCompose(c ->
            info(c.async(), node.getNodeId(), address)));
      }
    }
    return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
      List<NodeInfo> out = new ArrayList<>(each.size());
      for (CompletableFuture<NodeInfo> f : each) {
        out.add(f.join());
      }
      return out;
    });
  }

  private static CompletableFuture<NodeInfo> info(
      io.lettuce.core.api.async.RedisAsyncCommands<String, String> c, String node,
      String address) {
    CompletableFuture<String> memory = c.info("memory").toCompletableFuture();
    CompletableFuture<String> stats = c.info("stats").toCompletableFuture();
    return memory.thenCombine(stats, (m, s) -> new NodeInfo(node, address, m + "\n" + s, null))
        .exceptionally(e -> {
          Throwable cause = RedisFailures.unwrap(e);
          if (cause instanceof io.lettuce.core.RedisCommandExecutionException) { // e.g. NOPERM
            return new NodeInfo(node, address, null, String.valueOf(cause.getMessage()));
          }
          throw e instanceof CompletionException done ? done : new CompletionException(e);
        });
  }

  @Override
  public CompletableFuture<Long> exists(String[] keys) {
    return async.exists(keys).toCompletableFuture();
  }

  @Override
  public CompletableFuture<Long> serverMillis() {
    return async.time().toCompletableFuture().thenApply(parts ->
        Long.parseLong(parts.get(0)) * 1000 + Long.parseLong(parts.get(1)) / 1000);
  }

  @Override
  public AutoCloseable every(long periodMillis, Runnable task) {
    ScheduledFuture<?> f = client.getResources().eventExecutorGroup()
        .scheduleAtFixedRate(task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    return () -> f.cancel(false);
  }

  @Override
  public void close() {
    try {
      connection.close();
    } finally {
      shutdown(client, 0, 2_000);
    }
  }
}
