package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.MillisClock;
import io.windowpane.testkit.etcd.EtcdCluster;
import io.windowpane.testkit.etcd.EtcdClusterExtension;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link ReplayLoad} on a real 3-member cluster whose leader is killed (SIGKILL) while replays
 * and adds share the keys' transactions: writes whose answers are lost with the leader are
 * resolved without losing or doubling an acknowledged event or replay. The call timeout (15 s)
 * outlasts the election, so no call fails.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
@ExtendWith(EtcdClusterExtension.class)
class ReplayLeaderLossIT {

  private final EtcdCluster cluster;

  ReplayLeaderLossIT(EtcdCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void leaderKilledWhileAddsAndReplaysShareTheKeys_everyAcknowledgedEventCountedOnce()
      throws Exception {
    MillisClock clock = MillisClock.system();
    try (EtcdEngine engine = TestEngines.builder(cluster.endpoints(), clock)
        .timeout(Duration.ofSeconds(15)).build()) {
      ReplayLoad load = new ReplayLoad(engine, clock);
      int leader = cluster.leader().orElseThrow();
      load.run(3, () -> {
        ReplayConcurrencyIT.sleep(2_000);
        cluster.kill(leader);
        ReplayConcurrencyIT.sleep(5_000);
      });
      System.out.println("leader " + leader + " killed under replays and adds: "
          + engine.metrics());
      assertThat(cluster.leader()).as("a new leader").isPresent().get().isNotEqualTo(leader);
      load.assertExact();
    }
  }
}
