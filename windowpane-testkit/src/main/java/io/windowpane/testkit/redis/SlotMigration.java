package io.windowpane.testkit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A hash slot halfway between two nodes of a {@link RedisCluster}, from
 * {@link RedisCluster#beginSlotMigration} until {@link #finish()}. Meanwhile the source answers
 * {@code ASK} for the slot's keys it no longer holds, so a test can drive traffic through the
 * redirections: move some keys with {@link #moveKeys}, or all with {@link #moveAllKeys}, then
 * {@link #finish()}.
 *
 * <p>Not thread-safe: one thread drives a migration, while any number of clients use the
 * cluster.
 */
public final class SlotMigration {

  /*
   * Design note. These are the steps of redis-cli's clusterManagerMoveSlot, in its order, and of
   * the "Live resharding" section of the Cluster specification:
   *   1. CLUSTER SETSLOT slot IMPORTING sourceId on the target, then
   *      CLUSTER SETSLOT slot MIGRATING targetId on the source (target first, so the source never
   *      sends ASK towards a node that would bounce it back with MOVED);
   *   2. CLUSTER GETKEYSINSLOT slot 100 on the source and MIGRATE host port "" 0 5000 [AUTH pw]
   *      KEYS k1 k2 ... until it returns none. The source refuses to create new keys in a
   *      MIGRATING slot (it answers ASK), so the loop ends; MIGRATE is atomic per batch;
   *   3. CLUSTER SETSLOT slot NODE targetId on the target (which clears IMPORTING and bumps its
   *      config epoch, so its claim beats the source's in gossip), then the source, then every
   *      other node, so no node has to learn the move from gossip.
   * finish() then polls every node's CLUSTER SLOTS until all name the target (bounded, 10 s).
   * MIGRATE is sent without REPLACE: a key present on both nodes is a test bug worth a BUSYKEY
   * error, not data to overwrite silently.
   */

  private static final int BATCH = 100;
  private static final Duration MIGRATE_TIMEOUT = Duration.ofSeconds(5);
  /** Longer than MIGRATE_TIMEOUT, so MIGRATE's own IOERR arrives before our read times out. */
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration AGREEMENT_TIMEOUT = Duration.ofSeconds(10);
  private static final long POLL_MILLIS = 20;

  private final RedisCluster cluster;
  private final int slot;
  private final RedisClusterNode source;
  private final RedisClusterNode target;
  private boolean finished;

  private SlotMigration(RedisCluster cluster, int slot, RedisClusterNode source,
      RedisClusterNode target) {
    this.cluster = cluster;
    this.slot = slot;
    this.source = source;
    this.target = target;
  }

  /** Step 1; the arguments are already checked by {@link RedisCluster#beginSlotMigration}. */
  static SlotMigration begin(RedisCluster cluster, int slot, RedisClusterNode source,
      RedisClusterNode target) {
    try (RespClient client = target.client()) {
      client.command("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", source.nodeId());
    }
    try (RespClient client = source.client()) {
      client.command("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", target.nodeId());
    }
    return new SlotMigration(cluster, slot, source, target);
  }

  /** The slot being migrated. */
  public int slot() {
    return slot;
  }

  /** The node the slot is leaving; it owns the slot until {@link #finish()}. */
  public RedisClusterNode source() {
    return source;
  }

  /** The node the slot is moving to. */
  public RedisClusterNode target() {
    return target;
  }

  /**
   * Moves the given keys from the source to the target in one atomic {@code MIGRATE}; keys the
   * source does not hold are skipped. Afterwards the source answers {@code ASK} for them.
   *
   * @param keys keys of this slot
   * @throws IllegalArgumentException if a key hashes to another slot
   * @throws IllegalStateException if the migration is finished
   * @throws RespErrorException if {@code MIGRATE} fails, e.g. {@code BUSYKEY}
   */
  public void moveKeys(String... keys) {
    checkNotFinished();
    for (String key : keys) {
      if (HashSlots.slotOf(key) != slot) {
        throw new IllegalArgumentException("keys: expected keys of slot " + slot + ", got \""
            + key + "\" of slot " + HashSlots.slotOf(key));
      }
    }
    if (keys.length > 0) {
      try (RespClient client = migrationClient()) {
        migrate(client, Arrays.asList(keys));
      }
    }
  }

  /**
   * Moves every key the source still holds in this slot to the target, in batches of 100.
   *
   * @return the number of keys moved
   * @throws IllegalStateException if the migration is finished
   * @throws RespErrorException if {@code MIGRATE} fails, e.g. {@code BUSYKEY}
   */
  public int moveAllKeys() {
    checkNotFinished();
    int moved = 0;
    try (RespClient client = migrationClient()) {
      while (true) {
        List<?> keys = (List<?>) client.command("CLUSTER", "GETKEYSINSLOT",
            Integer.toString(slot), Integer.toString(BATCH));
        if (keys.isEmpty()) {
          return moved;
        }
        List<String> batch = new ArrayList<>(keys.size());
        keys.forEach(key -> batch.add((String) key));
        migrate(client, batch);
        moved += batch.size();
      }
    }
  }

  /**
   * Moves the remaining keys, assigns the slot to the target on every node, and returns once
   * every node's {@code CLUSTER SLOTS} names the target. Afterwards the source answers
   * {@code MOVED} for the slot.
   *
   * @throws IllegalStateException if already finished, or the nodes do not agree within 10 s
   * @throws RespErrorException if a node refuses a step
   */
  public void finish() {
    moveAllKeys();
    finished = true;
    List<RedisClusterNode> order = new ArrayList<>(List.of(target, source));
    cluster.nodes().stream().filter(node -> !order.contains(node)).forEach(order::add);
    for (RedisClusterNode node : order) {
      try (RespClient client = node.client()) {
        client.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", target.nodeId());
      }
    }
    awaitAgreement();
  }

  private void awaitAgreement() {
    long deadline = System.nanoTime() + AGREEMENT_TIMEOUT.toNanos();
    while (true) {
      Map<RedisClusterNode, String> views = cluster.ownerIdsSeen(slot);
      if (views.values().stream().allMatch(target.nodeId()::equals)) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("slot " + slot + " migrated to " + target + " but not"
            + " every node names it as the owner within " + AGREEMENT_TIMEOUT.toSeconds()
            + " s; owner node IDs seen by each node: " + views);
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while finishing " + this, e);
      }
    }
  }

  private void migrate(RespClient client, List<String> keys) {
    List<String> command = new ArrayList<>(List.of("MIGRATE", target.host(),
        Integer.toString(target.port()), "", "0", Long.toString(MIGRATE_TIMEOUT.toMillis())));
    cluster.password().ifPresent(password -> command.addAll(List.of("AUTH", password)));
    command.add("KEYS");
    command.addAll(keys);
    client.command(command.toArray(new String[0]));
  }

  private RespClient migrationClient() {
    RespClient client = RespClient.connect(source.host(), source.port(), CLIENT_TIMEOUT);
    try {
      cluster.password().ifPresent(password -> client.command("AUTH", password));
      return client;
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  private void checkNotFinished() {
    if (finished) {
      throw new IllegalStateException(this + " is already finished");
    }
  }

  @Override
  public String toString() {
    return "SlotMigration[slot " + slot + ", " + source.uri() + " -> " + target.uri()
        + (finished ? ", finished]" : "]");
  }
}
