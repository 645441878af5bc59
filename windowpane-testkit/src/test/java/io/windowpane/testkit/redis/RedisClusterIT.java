package io.windowpane.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@link RedisCluster} against real {@code redis-server} processes: formation, the slot function,
 * redirections, and live slot migration. {@link AssertStoppedAfterAll} is registered first, so
 * its {@code afterAll} runs after the extension's and checks that every node is gone. Tests that
 * migrate use their own hash tags, so the initial layout holds for the slots the others use.
 */
@ExtendWith(RedisClusterIT.AssertStoppedAfterAll.class)
@ExtendWith(RedisClusterExtension.class)
class RedisClusterIT {

  private static final AtomicReference<RedisCluster> INJECTED = new AtomicReference<>();

  private final RedisCluster cluster;

  RedisClusterIT(RedisCluster cluster) {
    this.cluster = cluster;
    INJECTED.compareAndSet(null, cluster);
  }

  @Test
  void everyNode_reportsAHealthyClusterOfThreePrimariesCoveringAllSlots() {
    assertThat(cluster.nodes()).hasSize(3);
    assertThat(cluster.nodes()).extracting(RedisClusterNode::nodeId)
        .doesNotHaveDuplicates().allSatisfy(id -> assertThat(id).hasSize(40));
    for (RedisClusterNode node : cluster.nodes()) {
      try (RespClient client = node.client()) {
        assertThat((String) client.command("CLUSTER", "INFO")).contains(
            "cluster_state:ok\r\n", "cluster_slots_assigned:16384\r\n",
            "cluster_known_nodes:3\r\n", "cluster_size:3\r\n");
        List<String> lines = ((String) client.command("CLUSTER", "NODES")).lines()
            .collect(Collectors.toList());
        assertThat(lines).hasSize(3).allSatisfy(line -> assertThat(line.split(" ")[2])
            .matches("(myself,)?master"));
        assertThat(client.command("CONFIG", "GET", "bind"))
            .isEqualTo(List.of("bind", "127.0.0.1"));
      }
    }
  }

  @Test
  void accessors_describeLoopbackNodesInStartOrder() {
    RedisClusterNode first = cluster.nodes().get(0);
    assertThat(cluster.uri()).isEqualTo("redis://127.0.0.1:" + first.port());
    assertThat(cluster.seedUris()).containsExactlyElementsOf(cluster.nodes().stream()
        .map(node -> "redis://127.0.0.1:" + node.port()).collect(Collectors.toList()));
    assertThat(cluster.password()).isEmpty();
    assertThat(cluster.nodes()).allSatisfy(node -> {
      assertThat(node.host()).isEqualTo("127.0.0.1");
      assertThat(node.busPort()).isNotEqualTo(node.port());
    });
  }

  @Test
  void nodeOwning_followsTheEvenInitialSplit() {
    List<RedisClusterNode> nodes = cluster.nodes();
    assertThat(cluster.nodeOwning(0)).isSameAs(nodes.get(0));
    assertThat(cluster.nodeOwning(5460)).isSameAs(nodes.get(0));
    assertThat(cluster.nodeOwning(5461)).isSameAs(nodes.get(1));
    assertThat(cluster.nodeOwning(10922)).isSameAs(nodes.get(2));
    assertThat(cluster.nodeOwning(16383)).isSameAs(nodes.get(2));
    assertThatThrownBy(() -> cluster.nodeOwning(16384))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("slot:");
  }

  @Test
  void slotOf_matchesClusterKeyslot_forRandomKeysAndEdgeCases() {
    List<String> keys = new ArrayList<>(List.of("", "{}", "{", "}", "{}{a}", "a{b}c{d}", "{a}",
        "a{}b{c}", "foo{bar", "{{a}}", "}{a}", "123456789", "{user1000}.following", "é{ü}"));
    Random random = new Random(20_240_611);
    String alphabet = "ab{}{}x9é中\uD83D\uDE00"; // braces twice as likely; a surrogate pair last
    for (int i = 0; i < 200; i++) {
      StringBuilder key = new StringBuilder();
      for (int length = random.nextInt(12); key.length() < length; ) {
        int at = random.nextInt(alphabet.length() - 1);
        key.append(alphabet.charAt(at) == '\uD83D' ? alphabet.substring(at) : alphabet.charAt(at));
      }
      keys.add(key.toString());
    }
    try (RespClient client = cluster.nodes().get(1).client()) {
      for (String key : keys) {
        assertThat(RedisCluster.slotOf(key)).as("slot of \"%s\"", key)
            .isEqualTo(((Long) client.command("CLUSTER", "KEYSLOT", key)).intValue());
      }
    }
  }

  @Test
  void set_onTheOwningNodeSucceeds_andEveryOtherNodeAnswersMoved() {
    String key = "owned-key";
    int slot = RedisCluster.slotOf(key);
    RedisClusterNode owner = cluster.nodeOwning(slot);
    try (RespClient client = owner.client()) {
      assertThat(client.command("SET", key, "v")).isEqualTo("OK");
      assertThat(client.command("GET", key)).isEqualTo("v");
    }
    for (RedisClusterNode other : others(owner)) {
      try (RespClient client = other.client()) {
        assertThatThrownBy(() -> client.command("GET", key))
            .isInstanceOf(RespErrorException.class)
            .hasMessage("MOVED " + slot + " 127.0.0.1:" + owner.port());
      }
    }
  }

  @Test
  void migrateSlot_movesTheSlotAndItsKeysToTheTarget() {
    List<String> keys = List.of("{migrate}a", "{migrate}b", "{migrate}c");
    int slot = RedisCluster.slotOf(keys.get(0));
    RedisClusterNode from = cluster.nodeOwning(slot);
    RedisClusterNode to = others(from).get(0);
    try (RespClient client = from.client()) {
      keys.forEach(key -> client.command("SET", key, "value of " + key));
    }

    cluster.migrateSlot(slot, from, to);

    assertThat(cluster.nodeOwning(slot)).isSameAs(to);
    try (RespClient client = to.client()) {
      assertThat(client.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)))
          .isEqualTo(3L);
      keys.forEach(key -> assertThat(client.command("GET", key)).isEqualTo("value of " + key));
    }
    try (RespClient client = from.client()) {
      assertThat(client.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot)))
          .isEqualTo(0L);
      assertThatThrownBy(() -> client.command("GET", keys.get(0)))
          .hasMessage("MOVED " + slot + " 127.0.0.1:" + to.port());
    }
  }

  @Test
  void halfMigratedSlot_sourceServesWhatItHolds_andAsksForTheRest() {
    String moved = "{ask}moved";
    String stayed = "{ask}stayed";
    int slot = RedisCluster.slotOf(moved);
    RedisClusterNode from = cluster.nodeOwning(slot);
    RedisClusterNode to = others(from).get(1);
    try (RespClient client = from.client()) {
      client.command("SET", moved, "1");
      client.command("SET", stayed, "2");
    }
    String ask = "ASK " + slot + " 127.0.0.1:" + to.port();

    SlotMigration migration = cluster.beginSlotMigration(slot, from, to);
    migration.moveKeys(moved);

    assertThat(cluster.nodeOwning(slot)).as("owner while half migrated").isSameAs(from);
    try (RespClient source = from.client(); RespClient target = to.client()) {
      assertThat(source.command("GET", stayed)).isEqualTo("2");
      assertThatThrownBy(() -> source.command("GET", moved)).hasMessage(ask);
      assertThatThrownBy(() -> source.command("SET", "{ask}new", "3")).hasMessage(ask);
      assertThatThrownBy(() -> target.command("GET", moved))
          .hasMessage("MOVED " + slot + " 127.0.0.1:" + from.port());
      assertThat(target.command("ASKING")).isEqualTo("OK");
      assertThat(target.command("GET", moved)).isEqualTo("1");
      assertThat(target.command("ASKING")).isEqualTo("OK");
      assertThat(target.command("SET", "{ask}new", "3")).isEqualTo("OK");
    }

    migration.finish();

    assertThat(cluster.nodeOwning(slot)).isSameAs(to);
    try (RespClient target = to.client()) {
      assertThat(target.command("MGET", moved, stayed, "{ask}new"))
          .isEqualTo(List.of("1", "2", "3"));
    }
    assertThatThrownBy(migration::finish).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void beginSlotMigration_rejectsBadArguments() {
    RedisClusterNode owner = cluster.nodeOwning(0);
    RedisClusterNode other = others(owner).get(0);
    assertThatThrownBy(() -> cluster.beginSlotMigration(0, other, owner))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("from: expected the owner of slot 0");
    assertThatThrownBy(() -> cluster.beginSlotMigration(0, owner, owner))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("to:");
    assertThatThrownBy(() -> cluster.beginSlotMigration(-1, owner, other))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("slot:");
    assertThatThrownBy(() -> RedisCluster.start(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("primaries:");
  }

  @Test
  void passwordCluster_requiresAuth_migratesWithAuth_andCloseStopsEverything() {
    RedisCluster secured = RedisCluster.startWithPassword(2, "s3cret");
    try {
      assertThat(secured.password()).contains("s3cret");
      RedisClusterNode first = secured.nodes().get(0);
      try (RespClient anonymous = RespClient.connect(first.host(), first.port(),
          Duration.ofSeconds(5))) {
        assertThatThrownBy(() -> anonymous.command("GET", "k"))
            .isInstanceOfSatisfying(RespErrorException.class,
                e -> assertThat(e.code()).isEqualTo("NOAUTH"));
      }
      int slot = RedisCluster.slotOf("secured");
      RedisClusterNode from = secured.nodeOwning(slot);
      RedisClusterNode to = secured.nodes().get(from == first ? 1 : 0);
      try (RespClient client = from.client()) {
        client.command("SET", "secured", "v");
      }

      secured.migrateSlot(slot, from, to);

      try (RespClient client = to.client()) {
        assertThat(client.command("GET", "secured")).isEqualTo("v");
      }
    } finally {
      secured.close();
    }
    assertStopped(secured);
    secured.close();
    assertThat(secured.toString()).endsWith(", closed]");
  }

  private List<RedisClusterNode> others(RedisClusterNode node) {
    return cluster.nodes().stream().filter(other -> other != node).collect(Collectors.toList());
  }

  static void assertStopped(RedisCluster cluster) {
    for (RedisClusterNode node : cluster.nodes()) {
      assertThat(node.process().isAlive()).as("process of %s alive", node).isFalse();
      assertThatThrownBy(() -> new Socket(node.host(), node.port()).close())
          .as("connecting to %s", node).isInstanceOf(IOException.class);
      assertThat(node.server().dataDir()).doesNotExist();
    }
  }

  /** Runs after the extension's afterAll: every node must be stopped and its port closed. */
  static final class AssertStoppedAfterAll implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) {
      RedisCluster cluster = INJECTED.get();
      assertThat(cluster).as("a cluster was injected").isNotNull();
      assertStopped(cluster);
    }
  }
}
