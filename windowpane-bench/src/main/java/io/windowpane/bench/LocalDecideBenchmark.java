package io.windowpane.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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

/*
 * Design note: one shared limiter (Scope.Benchmark), one hot key, every thread deciding against
 * it as fast as it can: the worst case for contention, and the case a per-process limiter in
 * front of a popular endpoint actually meets. Each fork runs one implementation only, so its
 * call site stays monomorphic and the JIT sees the library as a user's code would. Inputs (the
 * limiter, the key) are built in @Setup; the measured method does nothing but decide.
 */

/**
 * Throughput of "record one event and decide against a limit over a sliding 1-second window"
 * for one hot key shared by all threads, for the local engine's three algorithms and for the
 * peers users would otherwise pick ({@link Implementation}), on the allowed and the denied
 * path ({@link Scenario}).
 *
 * <p>{@link #decide} is the figure: operations (decisions) per second, and with {@code -prof gc}
 * the bytes allocated per decision ({@code gc.alloc.rate.norm}). {@link #decideCounted} runs
 * the same decision and also counts how many were allowed and denied (JMH secondary results
 * {@code allowed} and {@code denied}, per second), to check that each scenario takes the path
 * it is meant to; its small counting cost makes it a check, not the figure.
 *
 * <p>Run one configuration (the figures in docs/benchmarks.md are these, for every
 * {@code impl} and {@code scenario} at {@code -t 1} and {@code -t 2}, run one by one by
 * {@code windowpane-bench/run-local-benchmarks.py}):
 * <pre>
 * mvn -B -q -DskipTests package -pl windowpane-bench -am
 * java -jar windowpane-bench/target/benchmarks.jar 'LocalDecideBenchmark.decide$' \
 *     -p impl=WINDOWPANE_PANES -p scenario=ALLOWED -t 2 -f 2 -wi 3 -w 1s -i 5 -r 1s -prof gc \
 *     -jvmArgsAppend "-Xms2g -Xmx2g -XX:+AlwaysPreTouch"
 * </pre>
 * Without {@code -p} it runs the whole matrix (9 implementations x 2 scenarios). The counted
 * check: {@code 'LocalDecideBenchmark.decideCounted' -t 2 -f 1 -wi 2 -w 1s -i 3 -r 1s}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class LocalDecideBenchmark {

  @Param
  Implementation impl;

  @Param
  Scenario scenario;

  private Decider decider;

  @Setup(Level.Trial)
  public void setUp() {
    decider = impl.create(scenario);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    decider.close();
  }

  /** One decision; the result is consumed by JMH. */
  @Benchmark
  public boolean decide() {
    return decider.decide();
  }

  /** One decision, counted as allowed or denied. */
  @Benchmark
  public void decideCounted(Outcomes outcomes) {
    if (decider.decide()) {
      outcomes.allowed++;
    } else {
      outcomes.denied++;
    }
  }

  /** Per-thread counts of the decisions, reported by JMH as rates. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Outcomes {
    public long allowed;
    public long denied;

    @Setup(Level.Iteration)
    public void reset() {
      allowed = 0;
      denied = 0;
    }
  }
}
