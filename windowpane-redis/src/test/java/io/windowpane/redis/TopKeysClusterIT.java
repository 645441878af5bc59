package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.TopKey;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisCluster;
import io.windowpane.testkit.redis.RedisClusterExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Top keys and peek on a real 3-primary Redis Cluster: the sketch lives under its own hash tag
 * (another slot than the counted keys), fed by a call of its own, and ranks as on one server.
 */
@ExtendWith(RedisClusterExtension.class)
class TopKeysClusterIT {

  private final RedisCluster cluster;

  TopKeysClusterIT(RedisCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void zipfTraffic_rankedWithinTheBound_andPeekIsTheNextDecision() {
    ManualClock clock = ManualClock.at(TopKeysAndPeekIT.T + 99);
    try (Windowpane wp = TestEngines.cluster(cluster, clock)) {
      TopKeysAndPeekIT.zipfWithinTheBound(wp, clock, "czipf", 1_802, 2_400);
      TopKeysAndPeekIT.peekEqualsTheNextAcquire(wp, clock, null, "cpeek", 1_803);
    }
  }

  @Test
  void sketchExpiresWithTheWindow() {
    ManualClock clock = ManualClock.at(TopKeysAndPeekIT.T);
    try (Windowpane wp = TestEngines.cluster(cluster, clock)) {
      WindowCounter hits = wp.counter("chits", WindowSpec.panes(Duration.ofSeconds(10), 10)
          .withTopKeys(3));
      RateLimiter api = wp.limiter("capi", Quota.of(Limit.of(1,
          WindowSpec.log(Duration.ofSeconds(10)))).withTopKeys(3));
      for (String key : List.of("a", "b", "a", "c", "d", "a")) {
        hits.add(key);
        api.tryAcquire(key, 1);
      }
      assertThat(hits.top(1)).contains(List.of(new TopKey("a", 3, 0)));
      assertThat(api.topDenied(1)).contains(List.of(new TopKey("a", 2, 0)));
      clock.advance(10_000);
      assertThat(hits.top(3)).contains(List.of());
      assertThat(api.top(3)).contains(List.of());
    }
  }
}
