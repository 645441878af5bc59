package io.windowpane.bench;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.spi.EngineObserver;
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
 * What the observation SPI ({@link EngineObserver}, for tracing) costs on the local engine's hot
 * path: one decision on a {@code SLIDING_PANES} window (1 s / 10 panes, a limit never reached),
 * one hot key, with the {@code Windowpane} built three ways ({@code observer}):
 * <ul>
 *   <li>{@code absent}: {@code Windowpane.local()}, as every application without tracing;
 *   <li>{@code none}: {@code Windowpane.using(engine, EngineObserver.NONE)}, the SPI present but
 *       unused: must be {@code absent}'s figure within noise (the limiter is not wrapped);
 *   <li>{@code hooked}: an observer that does nothing, so the figure is the cost of the hook
 *       itself (a wrapper store, the observer's calls) without any tracing library behind it.
 * </ul>
 * Compare {@code absent} with {@link LocalAcquireBenchmark} built from the commit before the SPI
 * for "no regression" (same settings, same machine, one after the other).
 *
 * <p>Run:
 * <pre>
 * java -jar windowpane-bench/target/benchmarks.jar ObserverBenchmark \
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
public class ObserverBenchmark {

  /** How the {@code Windowpane} is built (see the class comment). */
  @Param({"absent", "none", "hooked"})
  String observer;

  private Windowpane wp;
  private RateLimiter limiter;
  private String key;

  @Setup(Level.Trial)
  public void setUp() {
    wp = switch (observer) {
      case "absent" -> Windowpane.local();
      case "none" -> Windowpane.using(Windowpane.localBuilder().buildEngine(),
          EngineObserver.NONE);
      case "hooked" -> Windowpane.using(Windowpane.localBuilder().buildEngine(),
          new EngineObserver() {});
      default -> throw new IllegalArgumentException("observer must be absent, none or hooked, "
          + "was " + observer);
    };
    limiter = wp.limiter("bench",
        Quota.of(Limit.of(1_000_000_000_000L, WindowSpec.panes(Duration.ofSeconds(1), 10))));
    key = Implementation.HOT_KEY;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    wp.close();
  }

  /** The {@link Decision} form. */
  @Benchmark
  public Decision tryAcquire() {
    return limiter.tryAcquire(key, 1);
  }

  /** The boolean form (observed, it takes the {@link Decision} path). */
  @Benchmark
  public boolean tryConsume() {
    return limiter.tryConsume(key, 1);
  }
}
