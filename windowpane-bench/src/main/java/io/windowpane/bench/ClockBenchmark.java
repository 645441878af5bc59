package io.windowpane.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reads of the clocks the rate limiters use, alone: {@link System#currentTimeMillis()}
 * (windowpane's default clock, Sentinel, Bucket4j, the naive log) and {@link System#nanoTime()}
 * (Resilience4j, Guava). Every decision in {@link LocalDecideBenchmark} but the
 * {@code LongAdder} ceiling reads one of them once, so this is the floor under each of those
 * figures on the machine that ran them. Measures reads per second.
 *
 * <p>Run:
 * <pre>
 * java -jar windowpane-bench/target/benchmarks.jar ClockBenchmark -t 1 -f 1 -wi 3 -w 1s -i 5 -r 1s \
 *     -jvmArgsAppend "-Xms2g -Xmx2g -XX:+AlwaysPreTouch"
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class ClockBenchmark {

  /** One read of the wall clock, in milliseconds. */
  @Benchmark
  public long currentTimeMillis() {
    return System.currentTimeMillis();
  }

  /** One read of the monotonic clock, in nanoseconds. */
  @Benchmark
  public long nanoTime() {
    return System.nanoTime();
  }
}
