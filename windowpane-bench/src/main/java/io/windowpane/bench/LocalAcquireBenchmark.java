package io.windowpane.bench;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
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

/**
 * The two forms of one windowpane decision side by side, on the local engine's
 * {@code SLIDING_PANES} window (1 s / 10 panes), one hot key shared by all threads:
 * {@code tryConsume} (a boolean) and {@code tryAcquire} (a {@link Decision} with the remaining
 * permits, and on denial the limit and {@code retryAfter}). Measures decisions per second and,
 * with {@code -prof gc}, the bytes the {@code Decision} form allocates per call
 * ({@code gc.alloc.rate.norm}). Limits as in {@link LocalDecideBenchmark}: 1e12 per second
 * (never reached) and 100 per second.
 *
 * <p>Run (also at {@code -t 2}; {@code windowpane-bench/run-local-benchmarks.py acquire} runs
 * each method and scenario on its own, as for the published figures):
 * <pre>
 * java -jar windowpane-bench/target/benchmarks.jar LocalAcquireBenchmark \
 *     -t 1 -f 2 -wi 3 -w 1s -i 5 -r 1s -prof gc \
 *     -jvmArgsAppend "-Xms2g -Xmx2g -XX:+AlwaysPreTouch"
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class LocalAcquireBenchmark {

  @Param
  Scenario scenario;

  private Windowpane wp;
  private RateLimiter limiter;
  private String key;

  @Setup(Level.Trial)
  public void setUp() {
    long limit = scenario.limit(1_000_000_000_000L);
    wp = Windowpane.local();
    limiter = wp.limiter("bench",
        Quota.of(Limit.of(limit, WindowSpec.panes(Duration.ofSeconds(1), 10))));
    key = Implementation.HOT_KEY;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    wp.close();
  }

  /** The boolean form: builds nothing. */
  @Benchmark
  public boolean tryConsume() {
    return limiter.tryConsume(key, 1);
  }

  /** The {@link Decision} form. */
  @Benchmark
  public Decision tryAcquire() {
    return limiter.tryAcquire(key, 1);
  }
}
