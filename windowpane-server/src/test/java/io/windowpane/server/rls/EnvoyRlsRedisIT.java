package io.windowpane.server.rls;

import static io.windowpane.server.rls.RlsClient.d;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.UInt64Value;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.windowpane.server.WindowpaneServer;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.testkit.redis.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * The Envoy rate limit service on the Redis engine, against a real redis-server started by the
 * testkit. Rules of a day, so Redis's clock moving during the test changes nothing.
 */
class EnvoyRlsRedisIT {

  static WindowpaneServer serve(RedisServer redis) throws Exception {
    String yaml = EnvoyRlsTest.config(EnvoyRlsTest.rules(), String.join("\n",
        "engine:", "  type: redis", "  redis:", "    uri: " + redis.uri(),
        "    timeout: 2s", "    connectTimeout: 2s"));
    return WindowpaneServer.start(ServerConfig.parse(yaml, "redis.yaml"));
  }

  @Test
  void matchingRules_hitsAddend_andBadRequests_onRedis() throws Exception {
    try (RedisServer redis = RedisServer.start();
        WindowpaneServer server = serve(redis);
        RlsClient rls = new RlsClient(server.grpcPort().getAsInt())) {
      for (int i = 1; i <= 5; i++) {
        assertThat(rls.call("messaging", d("message_type=marketing", "to_number=1"))
            .getStatuses(0).getLimitRemaining()).isEqualTo(5 - i);
      }
      RateLimitResponse two = rls.call("messaging",
          d("message_type=marketing", "to_number=1"), d("to_number=1"));
      assertThat(two.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
      assertThat(two.getStatuses(0).getCode()).isEqualTo(Code.OVER_LIMIT);
      assertThat(two.getStatuses(0).getDurationUntilReset().getSeconds()).isBetween(1L, 86_400L);
      // All or nothing: the per-number limit keeps nothing of the denied request.
      assertThat(two.getStatuses(1).getLimitRemaining()).isEqualTo(100);
      assertThat(rls.call("messaging", d("to_number=1")).getStatuses(0).getLimitRemaining())
          .isEqualTo(99);

      // hits_addend 40 then 60 fill the 100 exactly; one more is over and records nothing.
      assertThat(rls.call(RlsClient.request("messaging", 40, d("to_number=2")))
          .getStatuses(0).getLimitRemaining()).isEqualTo(60);
      assertThat(rls.call(RlsClient.request("messaging", 60, d("to_number=2")))
          .getOverallCode()).isEqualTo(Code.OK);
      RateLimitResponse over = rls.call("messaging", d("to_number=2"));
      assertThat(over.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
      assertThat(over.getStatuses(0).getLimitRemaining()).isZero();

      // replaces and unlimited on Redis.
      assertThat(rls.call("example7", d("key_1=value_1", "user=u"),
          d("key_2=value_2", "user=bkthomps")).getStatuses(1).getCurrentLimit()
          .getRequestsPerUnit()).isEqualTo(10);
      assertThat(rls.call("edge_proxy_per_ip", d("ldap=x")).getOverallCode())
          .isEqualTo(Code.OK);

      Assertions.assertThatThrownBy(() -> rls.call("nope", d("a=b")))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    }
  }

  @Test
  void nearAndOverSplitAsTheReference_remainingZero_moreHitsThanTheLimitPeeked_onRedis()
      throws Exception {
    try (RedisServer redis = RedisServer.start();
        WindowpaneServer server = serve(redis);
        RlsClient rls = new RlsClient(server.grpcPort().getAsInt())) {
      // 100 a day, near from 80. 75 hits: none near.
      assertThat(rls.call(RlsClient.request("messaging", 75, d("to_number=9")))
          .getOverallCode()).isEqualTo(Code.OK);
      // 75 used + 30: 5 beyond 100, 20 from 80 to 100; limit_remaining 0, not the 25 left.
      RateLimitResponse over = rls.call(RlsClient.request("messaging", 30, d("to_number=9")));
      assertThat(over.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
      assertThat(over.getStatuses(0).getLimitRemaining()).isZero();
      assertThat(RlsStats.of(server, "messaging.to_number"))
          .isEqualTo(new RlsStats(105, 5, 20, 75, 0));
      // 150 hits: denied without the engine; a peek reads the 75 used: 125 over, 20 near.
      assertThat(rls.call(RlsClient.request("messaging", 150, d("to_number=9")))
          .getOverallCode()).isEqualTo(Code.OVER_LIMIT);
      assertThat(RlsStats.of(server, "messaging.to_number"))
          .isEqualTo(new RlsStats(255, 130, 40, 75, 0));
    }
  }

  @Test
  void concurrentCallers_exactlyTheLimitIsAllowed_onRedis() throws Exception {
    try (RedisServer redis = RedisServer.start();
        WindowpaneServer server = serve(redis)) {
      int threads = 4;
      int callsEach = 30; // 120 calls at a limit of 100 a day
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<Integer>> allowed = new ArrayList<>();
      try {
        for (int t = 0; t < threads; t++) {
          allowed.add(pool.submit(() -> {
            int ok = 0;
            try (RlsClient rls = new RlsClient(server.grpcPort().getAsInt())) {
              for (int i = 0; i < callsEach; i++) {
                if (rls.call("messaging", d("to_number=shared")).getOverallCode() == Code.OK) {
                  ok++;
                }
              }
            }
            return ok;
          }));
        }
        int total = 0;
        for (Future<Integer> f : allowed) {
          total += f.get(60, TimeUnit.SECONDS);
        }
        assertThat(total).isEqualTo(100);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void allOrNothing_secondOver_firstUnchanged_andTheExactBoundary_onRedis() throws Exception {
    try (RedisServer redis = RedisServer.start();
        WindowpaneServer server = serve(redis);
        RlsClient rls = new RlsClient(server.grpcPort().getAsInt())) {
      String[] marketing = d("message_type=marketing", "to_number=6"); // 5 a day
      String[] number = d("to_number=6"); // 100 a day
      for (int i = 0; i < 5; i++) {
        assertThat(rls.call("messaging", number, marketing).getOverallCode())
            .isEqualTo(Code.OK);
      }
      for (int i = 0; i < 3; i++) {
        RateLimitResponse r = i % 2 == 0 ? rls.call("messaging", number, marketing)
            : rls.call("messaging", marketing, number);
        assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
      }
      assertThat(rls.call("messaging", number).getStatuses(0).getLimitRemaining())
          .isEqualTo(94);
      // The boundary: 100 hits on a number and 5 marketing hits fill both exactly...
      RateLimitResponse fill = rls.call(RateLimitRequest.newBuilder().setDomain("messaging")
          .addDescriptors(RlsClient.descriptor("to_number=7").toBuilder()
              .setHitsAddend(UInt64Value.of(100)))
          .addDescriptors(RlsClient.descriptor("message_type=marketing", "to_number=7")
              .toBuilder().setHitsAddend(UInt64Value.of(5)))
          .build());
      assertThat(fill.getOverallCode()).isEqualTo(Code.OK);
      assertThat(fill.getStatuses(0).getLimitRemaining()).isZero();
      assertThat(fill.getStatuses(1).getLimitRemaining()).isZero();
      // ...one more on either side is over, and neither side counts it.
      assertThat(rls.call("messaging", d("to_number=7")).getOverallCode())
          .isEqualTo(Code.OVER_LIMIT);
      assertThat(rls.call("messaging", d("message_type=marketing", "to_number=8"),
          d("to_number=7")).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
      assertThat(rls.call("messaging", d("message_type=marketing", "to_number=8"))
          .getStatuses(0).getLimitRemaining()).isEqualTo(4);
    }
  }

  /**
   * Clients racing requests {per-number 100 a day, shared by all; marketing 5 a day, one number
   * per client}: exactly 5 allowed per client, and the shared number ends with exactly those 20,
   * nothing of the 100 denied requests (which may have held a hit there for a moment).
   */
  @Test
  void allOrNothing_concurrentClients_exactTotals_onRedis() throws Exception {
    try (RedisServer redis = RedisServer.start();
        WindowpaneServer server = serve(redis)) {
      int clients = 4;
      ExecutorService pool = Executors.newFixedThreadPool(clients);
      List<Future<Integer>> allowed = new ArrayList<>();
      try {
        for (int t = 0; t < clients; t++) {
          String own = "to_number=own" + t;
          allowed.add(pool.submit(() -> {
            int ok = 0;
            try (RlsClient rls = new RlsClient(server.grpcPort().getAsInt())) {
              for (int i = 0; i < 30; i++) {
                if (rls.call("messaging", d("to_number=pooled"),
                    d("message_type=marketing", own)).getOverallCode() == Code.OK) {
                  ok++;
                }
              }
            }
            return ok;
          }));
        }
        for (Future<Integer> f : allowed) {
          assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(5);
        }
      } finally {
        pool.shutdownNow();
      }
      try (RlsClient rls = new RlsClient(server.grpcPort().getAsInt())) {
        assertThat(rls.call("messaging", d("to_number=pooled")).getStatuses(0)
            .getLimitRemaining()).isEqualTo(100 - 20 - 1);
      }
    }
  }

  @Test
  void redisDown_isUnavailable_neverAHang() throws Exception {
    RedisServer redis = RedisServer.start();
    try (WindowpaneServer server = serve(redis);
        RlsClient rls = new RlsClient(server.grpcPort().getAsInt())) {
      assertThat(rls.call("messaging", d("to_number=3")).getOverallCode()).isEqualTo(Code.OK);
      redis.close();
      long start = System.nanoTime();
      Assertions.assertThatThrownBy(() -> rls.call("messaging", d("to_number=3")))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(8));
    }
  }

  /** Six two-descriptor requests for one number: 5 OK, then over with nothing kept of it. */
  private static void fiveThenOverWithNothingKept(RlsClient rls, String number) {
    for (int i = 0; i < 5; i++) {
      assertThat(rls.call("messaging", d("message_type=marketing", "to_number=" + number),
          d("to_number=" + number)).getOverallCode()).isEqualTo(Code.OK);
    }
    RateLimitResponse r = rls.call("messaging", d("message_type=marketing",
        "to_number=" + number), d("to_number=" + number));
    assertThat(r.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    RateLimitResponse alone = rls.call("messaging", d("to_number=" + number));
    assertThat(r.getStatuses(1).getLimitRemaining()).as("%s then alone %s", r, alone)
        .isEqualTo(95); // all or nothing
    assertThat(alone.getStatuses(0).getLimitRemaining()).isEqualTo(94);
  }

  @Test
  void twoDescriptors_allOrNothing_theAllowedOnesRoomShown_onRedis() throws Exception {
    try (RedisServer redis = RedisServer.start();
        WindowpaneServer server = serve(redis);
        RlsClient rls = new RlsClient(server.grpcPort().getAsInt())) {
      fiveThenOverWithNothingKept(rls, "303");
    }
  }

  @Test
  void onAChainStartedWhileRedisIsDown_descriptorsStayAllOrNothing_whenItJoinsAndDiesAgain()
      throws Exception {
    int port = RedisServer.freePort();
    String yaml = EnvoyRlsTest.config(EnvoyRlsTest.rules(), String.join("\n",
        "engine:", "  chain: [redis, local]", "  redis:", "    uri: redis://127.0.0.1:" + port,
        "    timeout: 1s", "    connectTimeout: 1s", "  failover:", "    probeInterval: 50ms",
        "    probeTimeout: 1s", "    callTimeout: 1s", "    latencyThreshold: 1s"));
    try (WindowpaneServer server = WindowpaneServer.start(ServerConfig.parse(yaml, "c.yaml"));
        RlsClient rls = new RlsClient(server.grpcPort().getAsInt())) {
      fiveThenOverWithNothingKept(rls, "301"); // on the local fallback
      try (RedisServer redis = RedisServer.startOn(port)) {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.net.http.HttpRequest health = java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(server.url() + "/health")).build();
        long deadline = System.nanoTime() + 20_000_000_000L;
        String body = "";
        while (!body.contains("\"active\":\"redis\"") && System.nanoTime() < deadline) {
          body = http.send(health, java.net.http.HttpResponse.BodyHandlers.ofString()).body();
          Thread.sleep(20);
        }
        assertThat(body).contains("\"active\":\"redis\"");
        fiveThenOverWithNothingKept(rls, "302"); // on Redis

        redis.kill(); // and across a kill: the local fallback again, whole requests only
        for (int i = 0; i < 20; i++) {
          rls.call("messaging", d("to_number=305")); // calls that find Redis dead trip it
        }
        deadline = System.nanoTime() + 20_000_000_000L;
        body = "";
        while (!body.contains("\"active\":\"local\"") && System.nanoTime() < deadline) {
          body = http.send(health, java.net.http.HttpResponse.BodyHandlers.ofString()).body();
          Thread.sleep(20);
        }
        assertThat(body).contains("\"active\":\"local\"");
        fiveThenOverWithNothingKept(rls, "304");
      }
    }
  }
}
