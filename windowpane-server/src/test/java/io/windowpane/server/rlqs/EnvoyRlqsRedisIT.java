package io.windowpane.server.rlqs;

import static io.windowpane.server.rlqs.EnvoyRlqsTest.CHECKOUT;
import static io.windowpane.server.rlqs.EnvoyRlqsTest.CHECKOUT_KEY;
import static io.windowpane.server.rlqs.EnvoyRlqsTest.CHECKOUT_WINDOW;
import static io.windowpane.server.rlqs.EnvoyRlqsTest.one;
import static io.windowpane.server.rlqs.EnvoyRlqsTest.perUnit;
import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.type.v3.RateLimitStrategy.BlanketRule;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.redis.RedisEngine;
import io.windowpane.server.WindowpaneServer;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.testkit.redis.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rate limit quota service on a real redis-server (started by the testkit), one and two
 * service instances sharing it: both record into the same windows and see the same fleet. The
 * Redis engine runs on the test's manual clock (it passes the time to its functions), so
 * windows move only when the test moves them.
 */
class EnvoyRlqsRedisIT {

  @TempDir
  Path dir;
  RedisServer redis;
  ManualClock clock;
  Path buckets;
  final List<WindowpaneServer> servers = new ArrayList<>();
  final List<Windowpane> engines = new ArrayList<>();
  final List<RlqsEnvoy> envoys = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    redis = RedisServer.start();
    clock = ManualClock.at(EnvoyRlqsTest.START);
    buckets = Files.writeString(dir.resolve("buckets.yaml"), EnvoyRlqsTest.BUCKETS);
  }

  @AfterEach
  void stop() throws Exception {
    for (RlqsEnvoy e : envoys) {
      e.close();
    }
    for (WindowpaneServer s : servers) {
      s.close();
    }
    redis.close();
  }

  WindowpaneServer serve() throws Exception {
    Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri()).clock(clock)
        .timeout(Duration.ofSeconds(5)).build());
    engines.add(wp);
    WindowpaneServer s = WindowpaneServer.start(ServerConfig.parse(
        EnvoyRlqsTest.config(buckets, ""), "redis.yaml"), wp, clock);
    servers.add(s);
    return s;
  }

  RlqsEnvoy envoy(WindowpaneServer s) {
    RlqsEnvoy e = new RlqsEnvoy(s.rlqsPort().getAsInt());
    envoys.add(e);
    return e;
  }

  long checkoutCount() {
    return engines.get(engines.size() - 1).counter("rlqs:checkout", CHECKOUT_WINDOW)
        .count(CHECKOUT_KEY);
  }

  void fleetWithinTheBound(List<RlqsEnvoy> fleetEnvoys, long[] demand) throws Exception {
    int n = fleetEnvoys.size();
    EnvoyFleet fleet = new EnvoyFleet(fleetEnvoys, "edge", CHECKOUT, 2_000, 1_000);
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      for (int round = 0; round < 40; round++) {
        clock.advance(1_000);
        fleet.round(pool, clock.millis(), 1_000, demand);
      }
    } finally {
      pool.shutdownNow();
    }
    long bound = 1000 + (n - 1) * fleet.largestAssignment;
    long busiest = fleet.busiestWindow(10);
    long last = Math.floorDiv(clock.millis(), 1000);
    long quietest = fleet.quietestWindow(10, fleet.allowedByPane.firstKey() + 10, last);
    System.out.printf("rlqs redis fleet: %d servers, n=%d L=1000/10s T=2s I=1s: busiest window"
        + " %d, quietest %d, largest assignment %d, bound %d%n", servers.size(), n, busiest,
        quietest, fleet.largestAssignment, bound);
    assertThat(busiest).isLessThanOrEqualTo(bound);
    assertThat(checkoutCount()).isEqualTo(fleet.allowedByPane.subMap(last - 9, last + 1)
        .values().stream().mapToLong(Long::longValue).sum());
    assertThat(quietest).isGreaterThanOrEqualTo(250);
  }

  @Test
  void oneServer_sixEnvoys_concurrentReports_fleetWithinTheBound() throws Exception {
    WindowpaneServer s = serve();
    List<RlqsEnvoy> six = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      six.add(envoy(s));
    }
    fleetWithinTheBound(six, new long[] {30, 60, 90, 120, 240, 480});
  }

  @Test
  void twoServers_oneRedis_shareOneWindow_fleetWithinTheBound() throws Exception {
    WindowpaneServer a = serve();
    WindowpaneServer b = serve();
    List<RlqsEnvoy> six = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      six.add(envoy(i % 2 == 0 ? a : b));
    }
    fleetWithinTheBound(six, new long[] {30, 60, 90, 120, 240, 480});
  }

  @Test
  void twoServers_seeEachOthersUsage_andDemand_andAServerRestartKeepsTheWindow()
      throws Exception {
    WindowpaneServer a = serve();
    WindowpaneServer b = serve();
    RlqsEnvoy onA = envoy(a);
    RlqsEnvoy onB = envoy(b);
    one(onA, CHECKOUT, 0, 100);
    one(onB, CHECKOUT, 600, 100); // recorded through b
    // a sees b's 600 and b's demand: room 400, a's share 100 / 800 -> 50 -> 16 per second.
    assertThat(perUnit(one(onA, CHECKOUT, 0, 0)).getRequestsPerTimeUnit()).isEqualTo(16);
    one(onA, CHECKOUT, 400, 0);
    assertThat(one(onB, CHECKOUT, 0, 1).getQuotaAssignmentAction().getRateLimitStrategy()
        .getBlanketRule()).isEqualTo(BlanketRule.DENY_ALL);

    // b goes silent: after one TTL (plus a demand pane), a has the whole room again.
    clock.advance(10_000);
    one(onA, CHECKOUT, 0, 100);
    assertThat(perUnit(one(onA, CHECKOUT, 0, 100)).getRequestsPerTimeUnit()).isEqualTo(333);

    // A server restart loses nothing: the window lives in Redis.
    one(onA, CHECKOUT, 900, 0);
    onA.close();
    envoys.remove(onA);
    servers.remove(a);
    a.close();
    WindowpaneServer again = serve();
    clock.advance(2_200); // a's demand ages out; its 900 stay in the 10 s window: room 100
    assertThat(perUnit(one(envoy(again), CHECKOUT, 0, 10)).getRequestsPerTimeUnit())
        .isEqualTo(33);
    assertThat(checkoutCount()).isEqualTo(900);
  }
}
