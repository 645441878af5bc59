package io.windowpane.testkit.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * A running Redis Cluster of primaries without replicas: one {@code redis-server} process per
 * node, each in cluster mode on {@code 127.0.0.1} with a free client port, a free bus port, a
 * private temporary directory (holding its {@code nodes.conf}), persistence off and a node
 * timeout of 2 s. The 16384 slots are split evenly in node order: node {@code i} of {@code n}
 * owns {@code [i*16384/n, (i+1)*16384/n - 1]}.
 *
 * <p>Lifecycle: {@link #start()} returns once every node reports {@code cluster_state:ok}, all
 * 16384 slots assigned and all nodes known (usually 2 to 3 s; at most 20 s, else it fails);
 * {@link #close()} stops every process through its own {@link Process} handle, never by name, and
 * deletes the directories. A JVM shutdown hook per node does the same if the cluster is never
 * closed. Tests usually get one from {@link RedisClusterExtension}.
 *
 * <p>Slots move only when a test moves them ({@link #migrateSlot}, {@link #beginSlotMigration});
 * with no replicas there is no failover. Clients from {@link RedisClusterNode#client()} follow no
 * redirections, which is what a test of {@code MOVED} and {@code ASK} handling needs.
 *
 * <p>Thread-safe: the accessors are immutable values, every query opens its own connections, and
 * {@link #close()} is idempotent. Migrating the same slot from two threads at once is not
 * supported.
 */
public final class RedisCluster implements AutoCloseable {

  /** The number of hash slots, {@code 16384}. */
  public static final int SLOTS = HashSlots.SLOTS;
  /** The number of primaries {@link #start()} and {@link RedisClusterExtension} use. */
  public static final int DEFAULT_PRIMARIES = 3;

  private final List<RedisClusterNode> nodes;
  private final String password;
  private final AtomicBoolean closed = new AtomicBoolean();

  RedisCluster(List<RedisClusterNode> nodes, String password) {
    this.nodes = List.copyOf(nodes);
    this.password = password;
  }

  /**
   * Starts a cluster of {@value #DEFAULT_PRIMARIES} primaries without a password.
   *
   * @throws IllegalStateException if {@code redis-server} is missing (the message says how to
   *     install it), a node does not start, or the cluster is not healthy within 20 s (the message
   *     carries each node's {@code CLUSTER INFO} and the tail of its output)
   */
  public static RedisCluster start() {
    return start(DEFAULT_PRIMARIES);
  }

  /**
   * Starts a cluster of {@code primaries} primaries without a password.
   *
   * @param primaries from 1 to 16
   * @throws IllegalArgumentException if {@code primaries} is out of range
   * @throws IllegalStateException as for {@link #start()}
   */
  public static RedisCluster start(int primaries) {
    return RedisClusterLauncher.start(checkPrimaries(primaries), null);
  }

  /**
   * Starts a cluster whose nodes require {@code AUTH password} ({@code --requirepass}, and
   * {@code --masterauth} so replicas added later could sync).
   *
   * @param primaries from 1 to 16
   * @param password non-empty, without whitespace or control characters
   * @throws IllegalArgumentException if an argument is out of range
   * @throws IllegalStateException as for {@link #start()}
   */
  public static RedisCluster startWithPassword(int primaries, String password) {
    return RedisClusterLauncher.start(checkPrimaries(primaries),
        RedisServer.checkPassword(password));
  }

  /** Returns {@code primaries} if {@link #start(int)} accepts it, else throws. */
  static int checkPrimaries(int primaries) {
    if (primaries < 1 || primaries > RedisClusterLauncher.MAX_PRIMARIES) {
      throw new IllegalArgumentException("primaries: expected 1.."
          + RedisClusterLauncher.MAX_PRIMARIES + ", got " + primaries);
    }
    return primaries;
  }

  /**
   * The hash slot of {@code key}, as {@code CLUSTER KEYSLOT} computes it: CRC16 (XMODEM) of the
   * key's UTF-8 bytes modulo 16384, hashing only the first non-empty {@code {hash tag}} if the
   * key has one ({@code "{user1}.a"} and {@code "{user1}.b"} share a slot; {@code "{}x"} and
   * {@code "{x"} hash whole). Needs no running cluster.
   *
   * @return a slot in {@code [0, 16383]}
   */
  public static int slotOf(String key) {
    return HashSlots.slotOf(key);
  }

  /** The nodes in start order; node {@code i} started owning the {@code i}-th slot range. */
  public List<RedisClusterNode> nodes() {
    return nodes;
  }

  /**
   * {@code redis://127.0.0.1:PORT} of the first node: one seed is enough for a cluster client,
   * which discovers the others. Never carries the password.
   */
  public String uri() {
    return nodes.get(0).uri();
  }

  /** {@code redis://127.0.0.1:PORT} of every node, in {@link #nodes()} order. */
  public List<String> seedUris() {
    return nodes.stream().map(RedisClusterNode::uri).collect(Collectors.toUnmodifiableList());
  }

  /** The {@code requirepass} value of every node, if the cluster was started with one. */
  public Optional<String> password() {
    return Optional.ofNullable(password);
  }

  /**
   * The node owning {@code slot}, according to every node's {@code CLUSTER SLOTS}. While a slot
   * is being migrated its owner is still the source, until {@link SlotMigration#finish()}.
   *
   * @param slot in {@code [0, 16383]}
   * @throws IllegalArgumentException if {@code slot} is out of range
   * @throws IllegalStateException if the nodes disagree, or name no owner or an unknown node
   */
  public RedisClusterNode nodeOwning(int slot) {
    checkSlot(slot);
    Map<RedisClusterNode, String> views = ownerIdsSeen(slot);
    List<String> distinct = views.values().stream().distinct().collect(Collectors.toList());
    Optional<RedisClusterNode> owner =
        distinct.size() == 1 ? node(distinct.get(0)) : Optional.empty();
    return owner.orElseThrow(() -> new IllegalStateException(
        "no single known owner of slot " + slot + "; owner node IDs seen by each node: " + views));
  }

  /**
   * Moves {@code slot} and its keys from {@code from} to {@code to} while the cluster serves
   * traffic, as {@code redis-cli --cluster reshard} does: {@code beginSlotMigration(slot, from,
   * to).finish()}. Returns once every node names {@code to} as the owner.
   *
   * @throws IllegalArgumentException as for {@link #beginSlotMigration}
   * @throws RespErrorException if a node refuses a step, e.g. {@code MIGRATE} answering
   *     {@code BUSYKEY} because the target already holds a key of that name
   * @throws IllegalStateException if the nodes do not agree on the new owner within 10 s
   */
  public void migrateSlot(int slot, RedisClusterNode from, RedisClusterNode to) {
    beginSlotMigration(slot, from, to).finish();
  }

  /**
   * Starts moving {@code slot} from {@code from} to {@code to} and returns with the slot half
   * migrated: {@code to} is {@code IMPORTING} it, {@code from} is {@code MIGRATING} it, and no key
   * has moved yet. From now until {@link SlotMigration#finish()}, {@code from} serves the slot's
   * keys it still holds and answers {@code ASK} for the others, and {@code to} serves a key only
   * after {@code ASKING}. See {@link SlotMigration} for moving keys.
   *
   * @param slot in {@code [0, 16383]}, owned by {@code from}
   * @param from a node of this cluster
   * @param to another node of this cluster
   * @throws IllegalArgumentException if {@code slot} is out of range, a node is not one of
   *     {@link #nodes()}, {@code from == to}, or {@code from} does not own {@code slot}
   * @throws RespErrorException if a node refuses {@code CLUSTER SETSLOT}
   */
  public SlotMigration beginSlotMigration(int slot, RedisClusterNode from, RedisClusterNode to) {
    checkSlot(slot);
    checkMember(from, "from");
    checkMember(to, "to");
    if (from == to) {
      throw new IllegalArgumentException("to: expected a node other than from, got " + to);
    }
    RedisClusterNode owner = nodeOwning(slot);
    if (owner != from) {
      throw new IllegalArgumentException(
          "from: expected the owner of slot " + slot + ", which is " + owner + ", got " + from);
    }
    return SlotMigration.begin(this, slot, from, to);
  }

  /** Each node's view of the owner of {@code slot}: a node ID, or {@code "none"}. */
  Map<RedisClusterNode, String> ownerIdsSeen(int slot) {
    Map<RedisClusterNode, String> views = new LinkedHashMap<>();
    for (RedisClusterNode node : nodes) {
      String owner = "none";
      try (RespClient client = node.client()) {
        for (Object range : (List<?>) client.command("CLUSTER", "SLOTS")) {
          List<?> fields = (List<?>) range;
          if ((Long) fields.get(0) <= slot && slot <= (Long) fields.get(1)) {
            owner = (String) ((List<?>) fields.get(2)).get(2);
          }
        }
      }
      views.put(node, owner);
    }
    return views;
  }

  private Optional<RedisClusterNode> node(String nodeId) {
    return nodes.stream().filter(node -> node.nodeId().equals(nodeId)).findFirst();
  }

  static void checkSlot(int slot) {
    if (slot < 0 || slot >= SLOTS) {
      throw new IllegalArgumentException("slot: expected 0.." + (SLOTS - 1) + ", got " + slot);
    }
  }

  private void checkMember(RedisClusterNode node, String name) {
    if (!nodes.contains(node)) {
      throw new IllegalArgumentException(name + ": expected a node of " + this + ", got " + node);
    }
  }

  /**
   * Stops every node and deletes its directory; returns once all processes have exited (about
   * 10 s at worst per node). Idempotent.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      List<RuntimeException> failures = new ArrayList<>();
      for (RedisClusterNode node : nodes) {
        try {
          node.server().close();
        } catch (RuntimeException e) {
          failures.add(e);
        }
      }
      if (!failures.isEmpty()) {
        RuntimeException first = failures.get(0);
        failures.subList(1, failures.size()).forEach(first::addSuppressed);
        throw first;
      }
    }
  }

  @Override
  public String toString() {
    return "RedisCluster[" + String.join(", ", seedUris()) + (closed.get() ? ", closed]" : "]");
  }
}
