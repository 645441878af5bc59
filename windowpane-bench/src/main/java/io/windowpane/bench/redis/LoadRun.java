package io.windowpane.bench.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/*
 * Design note: a closed loop. N caller threads each call decide() back to back, blocking, the way
 * request threads of a service would; there is no target rate, so latency is the time each call
 * took as its caller saw it (no coordinated-omission correction applies: nothing was scheduled
 * that a slow call delayed). Phases are one volatile word the callers read before each call: a
 * call started in MEASURE is recorded in the caller's own Histogram (no sharing, no locks), and
 * the histograms are merged after the callers are joined. The server's statistics are reset just
 * before the phase flips to MEASURE and read after the callers have stopped, so they cover the
 * measured calls give or take one in-flight call per thread at each edge.
 *
 * Calls that take seconds (a raw statistics request at 1,000,000 values) are counted when they
 * complete instead (the phase is read again after the call): with calls as long as the interval,
 * "started in MEASURE" would count calls whose time lies mostly after it, while "completed in
 * MEASURE" divided by the interval is the throughput in it. For calls of microseconds the two
 * agree.
 */

/** Runs one contender on one key set: warmup, then a measured interval, N blocking callers. */
public final class LoadRun {

  private static final int WARMUP = 0;
  private static final int MEASURE = 1;
  private static final int STOP = 2;

  /** Longest latency a histogram holds; longer calls are recorded as this. */
  private static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(60);

  /** How long to wait for a caller after the end: any call is bounded far below this. */
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(10);

  private volatile int phase = WARMUP;
  private final boolean atCompletion;
  private Runnable atStart = () -> { };
  private Runnable atEnd = () -> { };

  private LoadRun(boolean atCompletion) {
    this.atCompletion = atCompletion;
  }

  /** Counts the calls started in the measured interval. */
  static Result run(String label, Contender contender, KeySet keySet, int threads,
      Duration warmup, Duration duration, Optional<ServerStats> stats) throws InterruptedException {
    return new LoadRun(false).measure(label, contender, keySet, threads, warmup, duration, stats,
        JOIN_TIMEOUT);
  }

  /**
   * Counts the calls started in the measured interval, for a store with no {@link ServerStats}:
   * {@code atStart} runs just before the measured interval begins and {@code atEnd} once the
   * callers have stopped (e.g. to snapshot a client's own counters around it).
   */
  public static Result run(String label, Contender contender, KeySet keySet, int threads,
      Duration warmup, Duration duration, Runnable atStart, Runnable atEnd)
      throws InterruptedException {
    LoadRun run = new LoadRun(false);
    run.atStart = atStart;
    run.atEnd = atEnd;
    return run.measure(label, contender, keySet, threads, warmup, duration, Optional.empty(),
        JOIN_TIMEOUT);
  }

  /**
   * Counts the calls completed in the measured interval, and waits up to {@code joinTimeout}
   * for each caller's last call after the end: for contenders whose calls may take seconds.
   */
  static Result runCountingCompletions(String label, Contender contender, KeySet keySet,
      int threads, Duration warmup, Duration duration, Optional<ServerStats> stats,
      Duration joinTimeout) throws InterruptedException {
    return new LoadRun(true).measure(label, contender, keySet, threads, warmup, duration, stats,
        joinTimeout);
  }

  private Result measure(String label, Contender contender, KeySet keySet, int threads,
      Duration warmup, Duration duration, Optional<ServerStats> stats, Duration joinTimeout)
      throws InterruptedException {
    List<Caller> callers = new ArrayList<>(threads);
    for (int t = 0; t < threads; t++) {
      Caller caller = new Caller(contender, keySet.sequence(t));
      caller.thread = new Thread(caller, "caller-" + label + "-" + t);
      caller.thread.setDaemon(true);
      callers.add(caller);
    }
    callers.forEach(c -> c.thread.start());
    sleep(warmup);

    stats.ifPresent(ServerStats::reset);
    atStart.run();
    Optional<ServerStats.Cpu> cpuBefore = stats.map(ServerStats::cpu);
    long clientCpuBefore = processCpuNanos();
    long start = System.nanoTime();
    phase = MEASURE;
    sleep(duration);
    phase = STOP;
    long end = System.nanoTime();
    long clientCpuAfter = processCpuNanos();
    double clientCpu = clientCpuBefore < 0 || clientCpuAfter < 0 ? Double.NaN
        : (clientCpuAfter - clientCpuBefore) / 1e9;

    int stuck = 0;
    for (Caller c : callers) {
      c.thread.join(joinTimeout.toMillis());
      if (c.thread.isAlive()) {
        stuck++;
      }
    }
    atEnd.run();
    Map<String, ServerStats.CommandStat> commands = stats.map(ServerStats::commands).orElse(Map.of());
    Optional<ServerStats.Cpu> cpu = stats.map(s -> s.cpu().minus(cpuBefore.orElseThrow()));

    Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
    long[] outcomes = new long[Outcome.values().length];
    long errors = 0;
    Optional<String> firstError = Optional.empty();
    for (Caller c : callers) {
      latency.add(c.latency);
      for (int i = 0; i < outcomes.length; i++) {
        outcomes[i] += c.outcomes[i];
      }
      errors += c.errors;
      if (firstError.isEmpty() && c.firstError != null) {
        firstError = Optional.of(c.firstError.toString());
      }
    }
    return new Result(label, keySet.name(), (end - start) / 1e9, latency,
        outcomes[Outcome.ALLOWED.ordinal()], outcomes[Outcome.DENIED.ordinal()],
        outcomes[Outcome.COUNTED.ordinal()], outcomes[Outcome.GAVE_UP.ordinal()],
        errors, firstError, stuck, commands, cpu, clientCpu);
  }

  /** This JVM's CPU time so far (every thread), in nanoseconds; -1 if the JVM cannot say. */
  static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean
        ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() : -1;
  }

  private static void sleep(Duration d) {
    long deadline = System.nanoTime() + d.toNanos();
    for (long left; (left = deadline - System.nanoTime()) > 0; ) {
      LockSupport.parkNanos(left);
    }
  }

  /** One caller thread: its key sequence, its histogram and counts (read after join). */
  private final class Caller implements Runnable {
    final Contender contender;
    final int[] sequence;
    final Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
    final long[] outcomes = new long[Outcome.values().length];
    long errors;
    Throwable firstError;
    Thread thread;

    Caller(Contender contender, int[] sequence) {
      this.contender = contender;
      this.sequence = sequence;
    }

    @Override
    public void run() {
      int mask = sequence.length - 1;
      for (int i = 0; ; i++) {
        int p = phase;
        if (p == STOP) {
          return;
        }
        int key = sequence[i & mask];
        long t0 = System.nanoTime();
        try {
          Outcome outcome = contender.decide(key);
          long took = System.nanoTime() - t0;
          if ((atCompletion ? phase : p) == MEASURE) {
            latency.recordValue(Math.min(took, MAX_LATENCY_NANOS));
            outcomes[outcome.ordinal()]++;
          }
        } catch (Exception e) {
          if ((atCompletion ? phase : p) == MEASURE) {
            errors++;
          }
          if (firstError == null) {
            firstError = e;
          }
        }
      }
    }
  }
}
