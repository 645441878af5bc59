package io.windowpane.bench.stats;

import io.windowpane.ManualClock;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.ThreadParams;

/*
 * Design note: one statistics window shared by all benchmark threads (Scope.Benchmark), one
 * hot key, every thread recording lognormal latencies into it as fast as it can. The window is
 * held at `population` values by WindowTraffic: before the trial it is prefilled with one window
 * of values spread over 60 s (1000 batches 60 ms apart on a ManualClock), and during it every
 * thread moves the clock one 600 ms step on per population / 100 of its own calls, so expired
 * values leave as fast as new ones come (see WindowTraffic). Each fork runs one implementation,
 * so call sites stay monomorphic. The values are precomputed per thread.
 */

/**
 * Throughput of a statistics window with a 60 s window held at {@code population} values
 * (10,000 or 1,000,000), for windowpane's histogram window (1 % accuracy, {@code panes} panes),
 * windowpane's exact window, and the raw-array design ({@link RawArrayStats}: every value kept,
 * the statistics recomputed per request by copying and sorting).
 *
 * <p>{@link #record}: one value recorded (the raw array appends and drops what expired).
 * {@link #request}: one value recorded and then the window's summary read and its p99 returned:
 * the raw-array design's unit of work ("append and recompute"), and what a caller that records
 * a latency and checks the window's p99 on the same request does. Operations per second, summed
 * over the threads; with {@code -prof gc}, bytes allocated per operation.
 *
 * <p>Run one configuration (windowpane-bench/run-stats-benchmarks.sh runs them all, one JMH
 * invocation each, through the quiet-machine gate of run-local-benchmarks.py):
 * <pre>
 * mvn -B -q -DskipTests package -pl windowpane-bench -am
 * java -jar windowpane-bench/target/benchmarks.jar 'StatsBenchmark.request$' \
 *     -p impl=RAW_ARRAY -p population=1000000 -p panes=60 -t 1 \
 *     -f 2 -wi 3 -w 1s -i 5 -r 1s -prof gc -jvmArgsAppend "-Xms2g -Xmx2g -XX:+AlwaysPreTouch"
 * </pre>
 * {@code WINDOWPANE_EXACT} runs at {@code population=10000} only (its bound is 1,000,000 values
 * per key, which a window held at 1,000,000 passes by a step's values when callers race).
 * {@code panes} applies to the histogram only.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class StatsBenchmark {

  /** The window: 60 s. */
  static final long WINDOW_MILLIS = 60_000;

  /** The one key every thread records into. */
  static final String KEY = "merchant:7";

  @Param({"WINDOWPANE_HISTOGRAM", "RAW_ARRAY"})
  StatsImplementation impl;

  @Param({"10000", "1000000"})
  int population;

  @Param({"60"})
  int panes;

  private ManualClock clock;
  private LocalStats stats;
  private long eventsPerStep;
  private long stepMillis;
  private int threads;

  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) throws Exception {
    WindowTraffic traffic = new WindowTraffic(WINDOW_MILLIS, population, 1);
    clock = ManualClock.at(WindowTraffic.START_MILLIS);
    stats = impl.create(clock, WINDOW_MILLIS, panes);
    traffic.prefill(clock, 1, WindowTraffic.PREFILL_BATCHES_PER_WINDOW, LatencyValues.seeded(1),
        (key, time, values) -> {
          for (double v : values) {
            stats.record(KEY, v);
          }
        });
    eventsPerStep = traffic.eventsPerStep();
    stepMillis = traffic.stepMillis();
    threads = params.getThreads();
    checkPopulation("after prefill");
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    checkPopulation("at the end");
    stats.close();
  }

  /** Fails the run if the window strayed from its population: the figure would mean nothing. */
  private void checkPopulation(String when) {
    long count = stats.count(KEY);
    long slack = (2L * threads + 1) * eventsPerStep;
    if (impl == StatsImplementation.WINDOWPANE_HISTOGRAM) {
      slack += population / panes; // a pane window sees between W - r and W of history
    }
    System.out.printf("%n%s: %s holds %,d values (population %,d)%n", when, impl, count,
        population);
    if (Math.abs(count - population) > slack) {
      throw new IllegalStateException(impl + " holds " + count + " values " + when
          + ", expected " + population + " +- " + slack);
    }
  }

  /** One value recorded. */
  @Benchmark
  public void record(Caller caller) {
    caller.tick(this);
    stats.record(KEY, caller.next());
  }

  /** One value recorded, then the window's p99 read. */
  @Benchmark
  public double request(Caller caller) {
    caller.tick(this);
    stats.record(KEY, caller.next());
    return stats.p99(KEY);
  }

  /** A benchmark thread's values and its share of moving the clock. */
  @State(Scope.Thread)
  public static class Caller {
    private LatencyValues values;
    private long index;
    private long untilStep = 1; // the first call moves the clock on: the window is then full - 1 step

    @Setup(Level.Trial)
    public void setUp(ThreadParams thread) {
      values = LatencyValues.seeded(1000 + thread.getThreadIndex());
    }

    void tick(StatsBenchmark b) {
      if (--untilStep == 0) {
        untilStep = b.eventsPerStep;
        b.clock.advance(b.stepMillis);
      }
    }

    double next() {
      return values.at(index++);
    }
  }
}
