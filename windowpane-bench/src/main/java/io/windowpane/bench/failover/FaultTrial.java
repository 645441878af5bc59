package io.windowpane.bench.failover;

import io.windowpane.Failover;
import io.windowpane.Limit;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.redis.RedisEngine;
import io.windowpane.testkit.fault.FaultProxy;
import io.windowpane.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/*
 * Design note: one trial, start to end, on fresh processes and a fresh chain.
 *
 *   redis-server A  <-  FaultProxy  <-  RedisEngine  \
 *                                                     Failover (default options)  <-  PacedLoad
 *                                       local engine /
 *
 * Kill: `healthy` of load, SIGKILL A, `down` of load, start redis-server B and retarget the
 * proxy to it (what a restart on the same address looks like to clients: A and B cannot share a
 * port while A's socket lingers), then load until `after` past the chain's report that Redis is
 * UP again. Hang: the same with SIGSTOP and SIGCONT on A, no new server.
 *
 * The chain is built with its defaults (call timeout 100 ms, 3 failures or 2 failed probes to
 * trip, 2 passed write probes to recover) and the Timeline as its listener. The limiter and the
 * counter use 60 s windows of 1 s panes, limit 10^6 per key: nothing is denied, and nothing
 * leaves a window before the end-of-trial check (HeldCheck), which runs once the load has
 * stopped and the journal is empty.
 */

/** One kill or hang of Redis under paced load: the timeline and what Redis held after. */
final class FaultTrial {

  enum Kind { KILL, HANG }

  static final WindowSpec MINUTE = WindowSpec.panes(Duration.ofSeconds(60), 60);
  static final Limit LIMIT = Limit.of(1_000_000, MINUTE);
  /** The chain's default call timeout: calls that took this long may have landed twice. */
  static final long CALL_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final long RECOVERY_DEADLINE_MILLIS = 12_000;
  static final long DRAIN_DEADLINE_MILLIS = 10_000;
  /** The longest a trial may take beyond its phases: recovery, drain, check, processes. */
  static final long OVERHEAD_BOUND_MILLIS = RECOVERY_DEADLINE_MILLIS + DRAIN_DEADLINE_MILLIS
      + 10_000;

  /**
   * @param number 1 for the first trial of its kind (the full timeline)
   * @param timeline per bucket and phase
   * @param dropped scheduled calls skipped by threads more than 1 s behind
   * @param signals what had tripped Redis, read just before the restart
   * @param stats the chain's counters at the end
   * @param drained whether the journal was empty and Redis active before the check
   * @param pendingAtCheck events still in the journal for Redis when the check ran
   * @param check what Redis held, or null if it could not be read
   * @param serverStartMillis how long the new redis-server took to answer (kill), or 0
   * @param faultCallMillis how long kill() / pause() took
   */
  record Result(Kind kind, int number, Phases phases, Timeline timeline, long dropped,
      List<Failover.Signal> signals, Failover.Stats stats, boolean drained, long pendingAtCheck,
      HeldCheck check,
      String checkError, long serverStartMillis, long faultCallMillis) {}

  /** The trial's three stretches of load. */
  record Phases(Duration healthy, Duration down, Duration after) {}

  private FaultTrial() {}

  static Result run(Kind kind, int number, Phases phases, String runId, DrillOptions options,
      String[] keys) throws Exception {
    String name = "drill-" + runId + "-" + kind.name().toLowerCase() + "-" + number;
    String counterName = name + "-events";
    List<AutoCloseable> open = new ArrayList<>();
    try {
      RedisServer first = closing(open, RedisServer.start());
      FaultProxy proxy = closing(open, FaultProxy.start(first.host(), first.port()));
      Timeline timeline = new Timeline(kind.name().toLowerCase() + " " + number);
      RedisEngine redis = RedisEngine.builder()
          .uri("redis://" + proxy.host() + ":" + proxy.port()).build();
      Failover chain = Failover.chain(redis, Windowpane.localBuilder().buildEngine())
          .listener(timeline).build();
      Windowpane wp = closing(open, Windowpane.using(chain));
      RateLimiter limiter = wp.limiter(name, LIMIT);
      WindowCounter counter = wp.counter(counterName, MINUTE);
      Tally tally = new Tally(keys.length, CALL_TIMEOUT_NANOS);

      RedisServer target = first;
      List<Failover.Signal> signals;
      long serverStartMillis = 0;
      long faultCallMillis;
      timeline.start();
      PacedLoad load = new PacedLoad(limiter, counter, keys, options.threads(), options.rate(),
          timeline, tally);
      try {
        sleep(phases.healthy().toMillis());
        timeline.fault();
        tally.faultStart();
        long f0 = System.nanoTime();
        if (kind == Kind.KILL) {
          first.kill();
        } else {
          first.pause();
        }
        faultCallMillis = (System.nanoTime() - f0) / 1_000_000;
        tally.faultEnd();
        timeline.faultDone();
        sleep(phases.down().toMillis());
        signals = chain.status().get(0).signals();
        if (kind == Kind.KILL) {
          long s0 = System.nanoTime();
          target = closing(open, RedisServer.start());
          serverStartMillis = (System.nanoTime() - s0) / 1_000_000;
          proxy.retarget(target.host(), target.port());
        } else {
          first.resume();
        }
        timeline.restart();
        awaitConnection(redis, timeline, RECOVERY_DEADLINE_MILLIS);
        await(timeline::recovered, RECOVERY_DEADLINE_MILLIS);
        sleep(phases.after().toMillis());
      } finally {
        load.close();
      }
      boolean drained = await(() -> chain.status().get(0).pendingReplay() == 0
          && chain.activeEngine().equals(Timeline.ENGINES[Timeline.PRIMARY]),
          DRAIN_DEADLINE_MILLIS);
      Failover.Stats stats = chain.stats();
      long pending = chain.status().get(0).pendingReplay();
      HeldCheck check = null;
      String checkError = null;
      try {
        check = HeldCheck.read(target, kind == Kind.KILL, name, counterName, LIMIT, keys, tally);
      } catch (RuntimeException e) {
        checkError = e.toString();
      }
      return new Result(kind, number, phases, timeline, load.dropped(), signals, stats, drained,
          pending, check, checkError, serverStartMillis, faultCallMillis);
    } finally {
      closeAll(open);
    }
  }

  /**
   * Runs the trials' load for {@code duration} on a chain of its own over a redis-server of its
   * own, no fault, and throws it all away: the JIT compiles the paths the first trial measures.
   */
  static void warmUp(DrillOptions options, String[] keys, Duration duration) throws Exception {
    List<AutoCloseable> open = new ArrayList<>();
    try {
      RedisServer server = closing(open, RedisServer.start());
      Failover chain = Failover.chain(RedisEngine.builder().uri(server.uri()).build(),
          Windowpane.localBuilder().buildEngine()).build();
      Windowpane wp = closing(open, Windowpane.using(chain));
      Timeline timeline = new Timeline("warm-up");
      timeline.start();
      try (PacedLoad load = new PacedLoad(wp.limiter("drill-warm-up", LIMIT),
          wp.counter("drill-warm-up-events", MINUTE), keys, options.threads(), options.rate(),
          timeline, new Tally(keys.length, CALL_TIMEOUT_NANOS))) {
        sleep(duration.toMillis());
      }
    } finally {
      closeAll(open);
    }
  }

  /**
   * Marks when the chain's own Redis engine answers a probe ({@code TIME}) again: its connection
   * is back. Polls every 5 ms, each probe given 100 ms.
   */
  private static void awaitConnection(RedisEngine redis, Timeline timeline, long millis)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (System.nanoTime() - deadline < 0) {
      try {
        redis.probe().toCompletableFuture().get(100, TimeUnit.MILLISECONDS);
        timeline.reconnected();
        return;
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        Thread.sleep(5);
      }
    }
  }

  static <T extends AutoCloseable> T closing(List<AutoCloseable> open, T t) {
    open.add(t);
    return t;
  }

  /** Closes in reverse order, every one even if some throw. */
  static void closeAll(List<AutoCloseable> open) {
    for (int i = open.size() - 1; i >= 0; i--) {
      try {
        open.get(i).close();
      } catch (Exception e) {
        System.err.println("closing " + open.get(i) + ": " + e);
      }
    }
  }

  /** Polls every 2 ms for at most {@code millis}; whether {@code condition} came true. */
  static boolean await(BooleanSupplier condition, long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.sleep(2);
    }
    return true;
  }

  static void sleep(long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    for (long left; (left = deadline - System.nanoTime()) > 0; ) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }
}
