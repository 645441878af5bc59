package io.windowpane.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.testkit.redis.RedisServer;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * What both web stacks must do on the chain [redis, local] when redis-server is SIGKILLed while
 * requests are in flight: every request is answered 200 or 429 (never a 5xx), Actuator's health
 * says {@code DEGRADED} (200) with the Redis member down and the local engine active, and the
 * chain's meters move (a trip, the Redis member's level, the active member). The load is bounded
 * in count: 4 threads, at most 1,500 requests each. A watchdog prints the threads and the
 * server's sockets ({@code ss}) when a request waits 15 s: that is how the Reactor Netty stall
 * described in {@link Http} was found (the request's bytes unread in the socket's receive queue).
 */
@DirtiesContext
@ActiveProfiles("demo")
public abstract class ChainKillScenarios {

  private static final int THREADS = 4;
  private static final int MAX_PER_THREAD = 1_500;

  protected static RedisServer redis;

  @DynamicPropertySource
  static void chainProperties(DynamicPropertyRegistry registry) {
    redis = RedisServer.start();
    registry.add("windowpane.engine.chain", () -> "redis,local");
    registry.add("windowpane.engine.redis.uri", () -> redis.uri());
    registry.add("windowpane.engine.redis.connect-timeout", () -> "10s");
    registry.add("windowpane.engine.failover.probe-interval", () -> "50ms");
    registry.add("windowpane.engine.failover.probe-timeout", () -> "1s");
    registry.add("windowpane.engine.failover.call-timeout", () -> "1s");
    registry.add("windowpane.engine.failover.latency-threshold", () -> "1s");
    registry.add("management.endpoint.health.show-details", () -> "always");
  }

  @AfterAll
  static void stopRedis() {
    if (redis != null) {
      redis.close();
      redis = null;
    }
  }

  @LocalServerPort
  int port;

  @Test
  void redisKilledMidLoad_everyRequestAnswered_healthDegraded_metersMove() throws Exception {
    Http http = new Http(port);
    assertThat(http.get("/actuator/health/windowpane").body()).contains("\"active\":\"redis\"");
    assertThat(http.meter("windowpane.failover.trips", null)).isEqualTo(0.0);

    Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    AtomicLong sent = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    Map<String, Long> sentAt = new ConcurrentHashMap<>();
    Thread watchdog = new Thread(() -> {
      while (!stop.get() || !sentAt.isEmpty()) {
        long now = System.currentTimeMillis();
        for (Map.Entry<String, Long> e : sentAt.entrySet()) {
          if (now - e.getValue() > 15_000) {
            Http.dumpThreads("request " + e.getKey() + " unanswered for 15 s; in flight on the"
                + " server: " + io.windowpane.spring.reactive.ReactiveApp.IN_FLIGHT);
            try {
              Process ss = new ProcessBuilder("ss", "-tni", "sport = :" + port + " or dport = :"
                  + port).redirectErrorStream(true).start();
              System.err.println("SOCKETS\n" + new String(ss.getInputStream().readAllBytes()));
            } catch (java.io.IOException io) {
              System.err.println("ss: " + io);
            }
            return;
          }
        }
        try {
          Thread.sleep(500);
        } catch (InterruptedException ie) {
          return;
        }
      }
    }, "chain-kill-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      Thread worker = new Thread(() -> {
        for (int i = 0; i < MAX_PER_THREAD && !stop.get(); i++) {
          try {
            // 1,500 distinct keys per thread: most requests are allowed, on Redis and on local
            sentAt.put(thread + "-" + i, System.currentTimeMillis());
            int status = http.get("/hello", "X-Client", "k" + thread + "-" + i,
                "X-Request-Id", thread + "-" + i).statusCode();
            sentAt.remove(thread + "-" + i);
            statuses.computeIfAbsent(status, c -> new AtomicInteger())
                .incrementAndGet();
            sent.incrementAndGet();
          } catch (RuntimeException e) {
            System.err.println("request " + thread + "-" + i + " failed at "
                + System.currentTimeMillis() + "; in flight on the server: "
                + io.windowpane.spring.reactive.ReactiveApp.IN_FLIGHT + "; finished: "
                + io.windowpane.spring.reactive.ReactiveApp.FINISHED.get(thread + "-" + i));
            failures.add(e);
            return;
          }
        }
      }, "chain-kill-load-" + t);
      worker.start();
      threads.add(worker);
    }
    try {
      awaitAtLeast(sent, 100);
      redis.kill();
      long killedAt = sent.get();
      // the chain trips on the refused connections, and the local engine answers from then on
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (!http.get("/actuator/health/windowpane").body().contains("\"active\":\"local\"")
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      awaitAtLeast(sent, killedAt + 200);
    } finally {
      stop.set(true);
      for (Thread worker : threads) {
        worker.join(60_000);
      }
    }

    assertThat(failures).isEmpty();
    Map<Integer, Integer> byStatus = new TreeMap<>();
    statuses.forEach((code, n) -> byStatus.put(code, n.get()));
    assertThat(byStatus.keySet()).as("statuses %s", byStatus).isSubsetOf(200, 429);
    assertThat(byStatus.get(200)).as("statuses %s", byStatus).isPositive();

    HttpResponse<String> health = http.get("/actuator/health/windowpane");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"status\":\"DEGRADED\"", "\"active\":\"local\"",
        "\"health\":\"down\"");
    assertThat(http.meter("windowpane.failover.trips", null)).isGreaterThanOrEqualTo(1.0);
    assertThat(http.meter("windowpane.failover.health", "engine:redis")).isEqualTo(2.0);
    assertThat(http.meter("windowpane.failover.active", "engine:local")).isEqualTo(1.0);
    assertThat(http.meter("windowpane.failover.active", "engine:redis")).isEqualTo(0.0);
  }

  private static void awaitAtLeast(AtomicLong sent, long n) throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (sent.get() < n) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the load sent " + sent.get() + " requests in 60 s, expected "
            + n);
      }
      Thread.sleep(5);
    }
  }
}
