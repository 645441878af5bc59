package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import io.windowpane.GroupDecision;
import io.windowpane.Leasing;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Engine;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;
import io.windowpane.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Leasing and all-or-nothing groups through a chain [Redis, local] while a real redis-server is
 * killed (SIGKILL) and restarted on the same port, under load from 4 threads: no caller sees an
 * exception, a group is never admitted in part, a release only ever reaches the member that
 * granted, and a hot key admits within the stated bound in every window.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
class RedisChainCompositionIT {

  private static final int THREADS = 4;

  /** Waits (bounded) until the chain's first member is {@code health}. */
  private static void await(Failover chain, Health health) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (chain.status().get(0).health() != health && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(chain.status().get(0).health()).as("%s", chain.status()).isEqualTo(health);
  }

  private static Thread started(Runnable body) {
    Thread t = new Thread(body);
    t.start();
    return t;
  }

  private static Failover chain(Engine redis, Engine local) {
    return Failover.chain(redis, local).callTimeout(Duration.ofMillis(500))
        .probeTimeout(Duration.ofMillis(500)).latencyThreshold(Duration.ofSeconds(1)).build();
  }

  @Test
  void groupsAcrossARedisKill_neverAdmittedInPart_andNoCallerSeesAnError() throws Exception {
    RedisServer redis = RedisServer.start();
    int port = redis.port();
    WindowSpec minute = WindowSpec.panes(Duration.ofMinutes(1), 60);
    try (Windowpane wp = Windowpane.using(chain(
        RedisEngine.builder().uri(redis.uri()).buildDeferred(),
        Windowpane.localBuilder().buildEngine()))) {
      Failover chain = wp.failover().orElseThrow();
      RateLimiter user = wp.limiter("group-user", Limit.of(1_000_000, minute));
      RateLimiter tenant = wp.limiter("group-tenant", Limit.of(1_000_000, minute));
      long[] allowedLocal = new long[THREADS];
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int me = t;
        threads.add(started(() -> {
          while (!stop.get()) {
            try {
              GroupDecision g = wp.tryAcquireAllOrNothing(List.of(user.request("u" + me, 1),
                  tenant.request("t" + me, 1))).orElseThrow();
              assertThat(g.allowed()).isTrue();
              String by = g.decision().engine().orElseThrow();
              for (Optional<Decision> d : g.decisions()) {
                assertThat(d.orElseThrow().engine()).contains(by); // decided on one member
              }
              if (by.equals("local")) {
                allowedLocal[me]++;
              }
            } catch (Throwable e) {
              errors.add(e);
            }
          }
        }));
      }
      Thread.sleep(300);
      redis.kill();
      await(chain, Health.DOWN);
      Thread.sleep(300);
      stop.set(true);
      for (Thread t : threads) {
        t.join();
      }
      assertThat(errors).isEmpty();
      // the fallback admitted whole groups only: each thread's two keys hold the same count there
      for (int t = 0; t < THREADS; t++) {
        assertThat(allowedLocal[t]).isPositive();
        assertThat(user.peek("u" + t, 1).orElseThrow().remaining())
            .isEqualTo(tenant.peek("t" + t, 1).orElseThrow().remaining());
        assertThat(1_000_000 - 1 - user.peek("u" + t, 1).orElseThrow().remaining())
            .isEqualTo(allowedLocal[t]);
      }
      // back on a new Redis: what the fallback admitted is replayed there, whole groups again
      try (RedisServer again = RedisServer.startOn(port)) {
        await(chain, Health.UP);
        for (int t = 0; t < THREADS; t++) {
          Decision u = user.peek("u" + t, 1).orElseThrow();
          assertThat(u.engine()).contains("redis");
          // every group the fallback admitted, and at most the one call each thread had in
          // flight at the kill once more (Lettuce re-sends it after reconnecting)
          assertThat(1_000_000 - 1 - u.remaining()).isBetween(allowedLocal[t],
              allowedLocal[t] + 1);
          assertThat(1_000_000 - 1 - tenant.peek("t" + t, 1).orElseThrow().remaining())
              .isBetween(allowedLocal[t], allowedLocal[t] + 1);
        }
      }
    } finally {
      redis.close();
    }
  }

  @Test
  void leasingAcrossARedisKillAndRestart_releasesOnlyToTheGrantingMember_withinTheBound()
      throws Exception {
    RedisServer redis = RedisServer.start();
    int port = redis.port();
    long limit = 2_000;
    WindowSpec second = WindowSpec.panes(Duration.ofSeconds(1), 10);
    Recording redisMember = new Recording(RedisEngine.builder().uri(redis.uri())
        .buildDeferred());
    Recording localMember = new Recording(Windowpane.localBuilder().buildEngine());
    try (Windowpane wp = Windowpane.using(chain(redisMember, localMember))) {
      Failover chain = wp.failover().orElseThrow();
      RateLimiter hot = wp.limiter("hot", Quota.of(Limit.of(limit, second))
          .withLeasing(Leasing.defaults()));
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      Map<Long, AtomicLong> certainPerWindow = new ConcurrentHashMap<>();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        threads.add(started(() -> {
          while (!stop.get()) {
            try {
              long before = System.currentTimeMillis();
              boolean allowed = hot.tryAcquire("k").allowed();
              long after = System.currentTimeMillis();
              if (allowed && before / 1_000 == after / 1_000) { // certainly in that window
                certainPerWindow.computeIfAbsent(before / 1_000, w -> new AtomicLong())
                    .incrementAndGet();
              }
            } catch (Throwable e) {
              errors.add(e);
            }
          }
        }));
      }
      Thread.sleep(1_200);
      redis.kill();
      await(chain, Health.DOWN);
      Thread.sleep(1_200);
      RedisServer again = RedisServer.startOn(port);
      try {
        await(chain, Health.UP);
        Thread.sleep(1_200);
      } finally {
        stop.set(true);
        for (Thread t : threads) {
          t.join();
        }
        again.close();
      }
      assertThat(errors).isEmpty();
      assertThat(redisMember.wrongReleases).isEmpty();
      assertThat(localMember.wrongReleases).isEmpty();
      assertThat(redisMember.grants).isPositive();
      assertThat(hot.leaseStats().orElseThrow().active()).isTrue();
      // panes: at most L in a window on one member; a window straddling the trip or the
      // recovery holds what each member admitted: at most 2L (docs/failover.md)
      for (Map.Entry<Long, AtomicLong> w : certainPerWindow.entrySet()) {
        assertThat(w.getValue().get()).as("window %s", w.getKey()).isLessThanOrEqualTo(2 * limit);
      }
    } finally {
      redis.close();
    }
  }

  @Test
  void leasingInTwoJvms_acrossARedisKillAndRestart_staysWithinTheFleetBound() throws Exception {
    RedisServer redis = RedisServer.start();
    int port = redis.port();
    long limit = 2_000;
    java.nio.file.Path javaBin = java.nio.file.Path.of(System.getProperty("java.home"), "bin",
        "java");
    List<Process> nodes = new ArrayList<>();
    List<java.io.BufferedReader> outputs = new ArrayList<>();
    RedisServer again = null;
    try {
      for (int n = 0; n < 2; n++) {
        Process p = new ProcessBuilder(List.of(javaBin.toString(), "-cp",
            System.getProperty("java.class.path"), ChainLeasingNodeMain.class.getName(),
            redis.uri(), Long.toString(limit)))
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        nodes.add(p);
        outputs.add(new java.io.BufferedReader(new java.io.InputStreamReader(
            p.getInputStream())));
      }
      for (java.io.BufferedReader out : outputs) { // both nodes deciding on Redis (bounded)
        assertThat(out.readLine()).isEqualTo("ready");
      }
      Thread.sleep(1_500);
      redis.kill();
      Thread.sleep(1_500);
      again = RedisServer.startOn(port);
      Thread.sleep(3_000); // both chains back on Redis (about 1 s) and leasing again
      for (Process p : nodes) {
        p.getOutputStream().write('\n');
        p.getOutputStream().flush();
      }
      Map<Long, Long> windows = new java.util.TreeMap<>();
      long leases = 0;
      for (int n = 0; n < nodes.size(); n++) {
        StringBuilder text = new StringBuilder();
        for (String line; (line = outputs.get(n).readLine()) != null; ) {
          text.append(line).append('\n');
        }
        String out = text.toString();
        assertThat(nodes.get(n).waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(out).as("node output").contains("errors 0", "wrong 0");
        for (String line : out.split("\n")) {
          String[] f = line.trim().split(" ");
          if (f[0].equals("window")) {
            windows.merge(Long.parseLong(f[1]), Long.parseLong(f[2]), Long::sum);
          } else if (f[0].equals("leases")) {
            leases += Long.parseLong(f[1]);
          }
        }
      }
      assertThat(leases).as("the nodes leased").isPositive();
      assertThat(windows).isNotEmpty();
      // a fleet of 2 at fleetNodes(2): at most L in a window on one member, and at most 2L in
      // one that straddles the trip or the recovery (docs/failover.md)
      for (Map.Entry<Long, Long> w : windows.entrySet()) {
        assertThat(w.getValue()).as("window %s of %s", w.getKey(), windows)
            .isLessThanOrEqualTo(2 * limit);
      }
    } finally {
      for (Process p : nodes) {
        p.destroyForcibly();
      }
      if (again != null) {
        again.close();
      }
      redis.close();
    }
  }

  /**
   * An engine over another that remembers the grants its limiters made and records any release
   * of a grant it did not make (key and instant): what a release sent to the wrong member shows.
   */
  static final class Recording implements Engine {
    final Engine engine;
    final Set<String> granted = ConcurrentHashMap.newKeySet();
    final List<String> wrongReleases = new CopyOnWriteArrayList<>();
    volatile long grants;

    Recording(Engine engine) {
      this.engine = engine;
    }

    @Override
    public String name() {
      return engine.name();
    }

    @Override
    public boolean inProcess() {
      return engine.inProcess();
    }

    @Override
    public boolean replays() {
      return engine.replays();
    }

    @Override
    public Duration failoverTimeout() {
      return engine.failoverTimeout();
    }

    @Override
    public CompletionStage<Void> probe() {
      return engine.probe();
    }

    @Override
    public CounterStore counterStore(String name, WindowSpec spec) {
      return engine.counterStore(name, spec);
    }

    @Override
    public StatsStore statsStore(String name, StatsSpec spec) {
      return engine.statsStore(name, spec);
    }

    @Override
    public LimiterStore limiterStore(String name, Quota quota) {
      LimiterStore s = engine.limiterStore(name, quota);
      return new LimiterStore() {
        @Override
        public Decision tryAcquire(String key, long permits) {
          return s.tryAcquire(key, permits);
        }

        @Override
        public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
          return s.tryAcquireAsync(key, permits);
        }

        @Override
        public boolean holdsState(String key) {
          return s.holdsState(key);
        }

        @Override
        public Optional<Decision> peek(String key, long permits) {
          return s.peek(key, permits);
        }

        @Override
        public CompletionStage<Optional<Grant>> leaseAsync(String key, long min, long max) {
          return s.leaseAsync(key, min, max).thenApply(g -> {
            g.filter(x -> x.permits() > 0).ifPresent(x -> {
              granted.add(key + "@" + x.atMillis());
              grants++;
            });
            return g;
          });
        }

        @Override
        public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
            String releaseId) {
          if (!granted.contains(key + "@" + atMillis)) {
            wrongReleases.add(key + "@" + atMillis);
          }
          return s.releaseAsync(key, permits, atMillis, releaseId);
        }

        @Override
        public CompletionStage<Void> replayAsync(String key, long permits, long atMillis,
            String replayId) {
          return s.replayAsync(key, permits, atMillis, replayId);
        }
      };
    }

    @Override
    public void close() {
      engine.close();
    }
  }
}
