package io.windowpane.testkit.redis;

/**
 * One primary of a {@link RedisCluster}: a {@code redis-server} process in cluster mode on
 * {@code 127.0.0.1}, with its client port, cluster bus port and node ID.
 *
 * <p>Immutable and thread-safe; the process's lifecycle belongs to the cluster, which stops it in
 * {@link RedisCluster#close()}. Equality is identity. Each {@link #client()} is a new connection.
 */
public final class RedisClusterNode {

  private final RedisServer server;
  private final String nodeId;
  private final int busPort;

  RedisClusterNode(RedisServer server, String nodeId, int busPort) {
    this.server = server;
    this.nodeId = nodeId;
    this.busPort = busPort;
  }

  /** The 40-character node ID ({@code CLUSTER MYID}), as it appears in redirections' topology. */
  public String nodeId() {
    return nodeId;
  }

  /** Always {@code "127.0.0.1"}: nodes listen and announce themselves on loopback only. */
  public String host() {
    return server.host();
  }

  /** The client port, chosen free at start. */
  public int port() {
    return server.port();
  }

  /** The cluster bus port ({@code --cluster-port}), chosen free at start, not port + 10000. */
  public int busPort() {
    return busPort;
  }

  /** {@code redis://127.0.0.1:PORT}; never carries the password. */
  public String uri() {
    return server.uri();
  }

  /** The node's process, e.g. to check {@link ProcessHandle#isAlive()} after the cluster closes. */
  public ProcessHandle process() {
    return server.process();
  }

  /**
   * A new connection to this node, already authenticated if the cluster has a password. It
   * follows no redirections: a key this node does not serve answers {@code MOVED} or {@code ASK}
   * as a {@link RespErrorException}. The caller closes it.
   *
   * @throws java.io.UncheckedIOException if the node cannot be reached within 5 s
   */
  public RespClient client() {
    return server.client();
  }

  /** The process handle the cluster closes. */
  RedisServer server() {
    return server;
  }

  @Override
  public String toString() {
    return "RedisClusterNode[" + uri() + ", id " + nodeId + ", pid " + process().pid() + "]";
  }
}
