package io.windowpane.testkit.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The 3-member cluster launcher against the real binary: start, leader, kill, re-election. */
class EtcdClusterIT {

  @Test
  void start_runsThreeHealthyMembersOnDistinctPortsWithOneLeader() throws Exception {
    try (EtcdCluster cluster = EtcdCluster.start()) {
      Set<String> endpoints = new HashSet<>(cluster.endpoints());
      assertThat(endpoints).hasSize(EtcdCluster.MEMBERS);
      HttpClient http = HttpClient.newHttpClient();
      for (String endpoint : cluster.endpoints()) {
        String health = http.send(HttpRequest.newBuilder(URI.create(endpoint + "/health"))
            .build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(health).contains("\"health\":\"true\"");
      }
      assertThat(cluster.leader()).isPresent();
    }
  }

  @Test
  void killingTheLeader_leavesTheOthersToElectAnother() {
    try (EtcdCluster cluster = EtcdCluster.start()) {
      int leader = cluster.leader().orElseThrow();
      cluster.kill(leader);
      assertThat(cluster.isRunning(leader)).isFalse();
      Optional<Integer> next = Optional.empty();
      long deadline = System.nanoTime() + 15_000_000_000L;
      while (next.isEmpty() && System.nanoTime() - deadline < 0) {
        next = cluster.leader(); // polls the members' status: each call is a round trip
      }
      assertThat(next).isPresent();
      assertThat(next.get()).isNotEqualTo(leader);
    }
  }

  @Test
  void close_stopsEveryMember() {
    EtcdCluster cluster = EtcdCluster.start();
    cluster.close();
    for (int i = 0; i < EtcdCluster.MEMBERS; i++) {
      assertThat(cluster.isRunning(i)).isFalse();
    }
    cluster.close(); // idempotent
  }
}
