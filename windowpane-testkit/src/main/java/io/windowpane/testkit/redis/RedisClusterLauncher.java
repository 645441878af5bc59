package io.windowpane.testkit.redis;

import io.windowpane.testkit.process.ServerProcess;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Starts the nodes of a {@link RedisCluster}, joins them and waits until the cluster is healthy.
 * Stateless and thread-safe: concurrent starts get distinct ports, directories and clusters.
 */
final class RedisClusterLauncher {

  /*
   * Design note. The cluster is built the way redis-cli --cluster create builds one, minus the
   * replicas: each node is a RedisLauncher launch with the cluster options appended, so the
   * retry on a lost port race, the readiness probe, the log file and the shutdown hook are the
   * standalone server's. The bus port is a second free port passed as --cluster-port (not the
   * implicit port + 10000, which nobody checked was free), and CLUSTER MEET names it explicitly.
   * Every node announces 127.0.0.1 so MOVED/ASK and CLUSTER SLOTS never carry another address.
   *
   * Joining: each node gets a distinct config epoch (CLUSTER SET-CONFIG-EPOCH i + 1, legal while
   * it knows no other node), which skips the epoch-collision rounds, then an even share of the
   * 16384 slots (ADDSLOTSRANGE; node i gets [i*16384/n, (i+1)*16384/n - 1]), then node 0 meets
   * every other node and gossip spreads the rest. Healthy means that every node's CLUSTER INFO
   * says cluster_state:ok, cluster_slots_assigned:16384, cluster_slots_ok:16384 and
   * cluster_known_nodes:n; it is polled every 50 ms for up to 20 s. A master holds its state at
   * fail for 2 s after start (CLUSTER_WRITABLE_DELAY in cluster.c), so formation takes a little
   * over 2 s whatever the poll interval.
   *
   * On any failure every node already started is stopped before the exception leaves, so a
   * failed start leaks neither processes nor directories.
   */

  static final int MAX_PRIMARIES = 16;
  static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(20);
  /** Small, so a node that dies is marked failed quickly; nothing here depends on failover. */
  static final Duration NODE_TIMEOUT = Duration.ofSeconds(2);
  private static final long POLL_MILLIS = 50;

  private RedisClusterLauncher() {}

  /**
   * Starts {@code primaries} nodes and returns once the cluster is healthy.
   *
   * @param password the {@code requirepass} and {@code masterauth} value, or null for none
   * @throws IllegalStateException if a node does not start (as for {@link RedisServer#start()})
   *     or the cluster is not healthy within {@link #FORMATION_TIMEOUT}; the message carries each
   *     node's CLUSTER INFO and the tail of its output
   */
  static RedisCluster start(int primaries, String password) {
    List<RedisServer> servers = new ArrayList<>(primaries);
    try {
      for (int i = 0; i < primaries; i++) {
        servers.add(RedisLauncher.start(password, (dir, busPort) -> {
          List<String> args = new ArrayList<>(List.of("--cluster-enabled", "yes",
              "--cluster-config-file", dir.resolve("nodes.conf").toString(),
              "--cluster-node-timeout", Long.toString(NODE_TIMEOUT.toMillis()),
              "--cluster-port", Integer.toString(busPort),
              "--cluster-announce-ip", ServerProcess.HOST));
          if (password != null) {
            args.addAll(List.of("--masterauth", password));
          }
          return args;
        }));
      }
      List<RedisClusterNode> nodes = join(servers);
      awaitHealthy(nodes);
      return new RedisCluster(nodes, password);
    } catch (RuntimeException e) {
      for (RedisServer server : servers) {
        server.close();
      }
      throw e;
    }
  }

  /** The slots node {@code i} of {@code n} gets: {@code [first, last]}. */
  static int[] slotRange(int i, int n) {
    return new int[] {i * HashSlots.SLOTS / n, (i + 1) * HashSlots.SLOTS / n - 1};
  }

  private static List<RedisClusterNode> join(List<RedisServer> servers) {
    List<RedisClusterNode> nodes = new ArrayList<>(servers.size());
    for (int i = 0; i < servers.size(); i++) {
      try (RespClient client = servers.get(i).client()) {
        String id = (String) client.command("CLUSTER", "MYID");
        List<?> busPort = (List<?>) client.command("CONFIG", "GET", "cluster-port");
        client.command("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        int[] range = slotRange(i, servers.size());
        client.command("CLUSTER", "ADDSLOTSRANGE", Integer.toString(range[0]),
            Integer.toString(range[1]));
        nodes.add(new RedisClusterNode(servers.get(i), id,
            Integer.parseInt((String) busPort.get(1))));
      }
    }
    try (RespClient first = nodes.get(0).client()) {
      for (RedisClusterNode other : nodes.subList(1, nodes.size())) {
        first.command("CLUSTER", "MEET", other.host(), Integer.toString(other.port()),
            Integer.toString(other.busPort()));
      }
    }
    return nodes;
  }

  private static void awaitHealthy(List<RedisClusterNode> nodes) {
    Map<String, String> healthy = Map.of("cluster_state", "ok",
        "cluster_slots_assigned", Integer.toString(HashSlots.SLOTS),
        "cluster_slots_ok", Integer.toString(HashSlots.SLOTS),
        "cluster_known_nodes", Integer.toString(nodes.size()));
    long deadline = System.nanoTime() + FORMATION_TIMEOUT.toNanos();
    while (true) {
      List<String> unhealthy = new ArrayList<>();
      for (RedisClusterNode node : nodes) {
        Map<String, String> info = clusterInfo(node);
        if (!info.entrySet().containsAll(healthy.entrySet())) {
          unhealthy.add(node + " " + info);
        }
      }
      if (unhealthy.isEmpty()) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("Redis Cluster of " + nodes.size() + " nodes not healthy"
            + " within " + FORMATION_TIMEOUT.toSeconds() + " s (expected " + healthy + " on"
            + " every node); unhealthy: " + unhealthy + logTails(nodes));
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the Redis Cluster", e);
      }
    }
  }

  /** A node's {@code CLUSTER INFO} as a map; a node that cannot answer gives an "error" entry. */
  static Map<String, String> clusterInfo(RedisClusterNode node) {
    try (RespClient client = node.client()) {
      return ((String) client.command("CLUSTER", "INFO")).lines()
          .filter(line -> line.indexOf(':') > 0)
          .collect(Collectors.toMap(line -> line.substring(0, line.indexOf(':')),
              line -> line.substring(line.indexOf(':') + 1), (a, b) -> b));
    } catch (UncheckedIOException | RespErrorException e) {
      return Map.of("error", String.valueOf(e.getMessage()));
    }
  }

  private static String logTails(List<RedisClusterNode> nodes) {
    StringBuilder tails = new StringBuilder();
    for (RedisClusterNode node : nodes) {
      tails.append("\nlast output of ").append(node).append(":\n")
          .append(ServerProcess.tail(node.server().dataDir().resolve("redis.log")));
    }
    return tails.toString();
  }
}
