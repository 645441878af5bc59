package io.windowpane.bench;

import com.alibaba.csp.sentinel.slots.statistic.data.MetricBucket;
import com.alibaba.csp.sentinel.slots.statistic.metric.BucketLeapArray;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Throughput of "record one event on a hot key and get the window's count back" for one
 * sliding-window counter shared by all threads (the counter counterpart of
 * {@link LocalDecideBenchmark}): windowpane's {@code WindowCounter.add} on its two
 * pane algorithms, and {@code WindowCounter.record} (the same without the count: stripes on a
 * hot key), beside Sentinel's {@code BucketLeapArray} (add a pass to the current bucket,
 * then sum the live buckets: what its statistic slot and a QPS read do), a single
 * {@link AtomicLong} ({@code addAndGet}: the floor for a count that every caller reads back
 * exactly, but no window) and {@link LongAdder} ({@code increment}, no count read back, no window:
 * the ceiling).
 *
 * <pre>
 * java -jar windowpane-bench/target/benchmarks.jar 'LocalCounterBenchmark.add$' \
 *     -p impl=WINDOWPANE_PANES -t 2 -f 3 -wi 2 -w 1s -i 3 -r 1s -prof gc \
 *     -jvmArgsAppend "-Xms2g -Xmx2g -XX:+AlwaysPreTouch"
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class LocalCounterBenchmark {

  /** The counters compared. */
  public enum CounterImpl {
    /** windowpane local engine, {@code SLIDING_PANES} 1 s / 10 panes, {@code add(key, 1)}. */
    WINDOWPANE_PANES {
      @Override
      LongSupplier create() {
        WindowCounter c = Windowpane.local().counter("bench",
            WindowSpec.panes(Duration.ofSeconds(1), 10));
        return () -> c.add("hot", 1);
      }
    },
    /** windowpane local engine, {@code SLIDING_WEIGHTED} 1 s, {@code add(key, 1)}. */
    WINDOWPANE_WEIGHTED {
      @Override
      LongSupplier create() {
        WindowCounter c = Windowpane.local().counter("bench",
            WindowSpec.weighted(Duration.ofSeconds(1)));
        return () -> c.add("hot", 1);
      }
    },
    /** windowpane {@code SLIDING_PANES} 1 s / 10, {@code record(key, 1)}: no count read back. */
    WINDOWPANE_PANES_RECORD {
      @Override
      LongSupplier create() {
        WindowCounter c = Windowpane.local().counter("bench",
            WindowSpec.panes(Duration.ofSeconds(1), 10));
        return () -> {
          c.record("hot", 1);
          return 1;
        };
      }
    },
    /** windowpane {@code SLIDING_WEIGHTED} 1 s, {@code record(key, 1)}: no count read back. */
    WINDOWPANE_WEIGHTED_RECORD {
      @Override
      LongSupplier create() {
        WindowCounter c = Windowpane.local().counter("bench",
            WindowSpec.weighted(Duration.ofSeconds(1)));
        return () -> {
          c.record("hot", 1);
          return 1;
        };
      }
    },
    /** Sentinel 1.8 {@code BucketLeapArray}, 10 buckets of 100 ms: addPass(1), then the sum. */
    SENTINEL {
      @Override
      LongSupplier create() {
        BucketLeapArray data = new BucketLeapArray(10, 1000);
        return () -> {
          long now = System.currentTimeMillis();
          data.currentWindow(now).value().addPass(1);
          long pass = 0;
          for (MetricBucket bucket : data.values(now)) {
            pass += bucket.pass();
          }
          return pass;
        };
      }
    },
    /** Sentinel 1.8 {@code BucketLeapArray}: addPass(1) only, nothing read back. */
    SENTINEL_RECORD {
      @Override
      LongSupplier create() {
        BucketLeapArray data = new BucketLeapArray(10, 1000);
        return () -> {
          data.currentWindow(System.currentTimeMillis()).value().addPass(1);
          return 1;
        };
      }
    },
    /** One {@link AtomicLong}, {@code addAndGet(1)}: no window. */
    ATOMIC_LONG {
      @Override
      LongSupplier create() {
        AtomicLong a = new AtomicLong();
        return () -> a.addAndGet(1);
      }
    },
    /** {@link LongAdder#increment}, nothing read back, no window: the ceiling. */
    LONG_ADDER {
      @Override
      LongSupplier create() {
        LongAdder a = new LongAdder();
        return () -> {
          a.increment();
          return 1;
        };
      }
    };

    abstract LongSupplier create();
  }

  @Param
  CounterImpl impl;

  private LongSupplier counter;

  @Setup(Level.Trial)
  public void setUp() {
    counter = impl.create();
  }

  /** One event added; the count it returns is consumed by JMH. */
  @Benchmark
  public long add() {
    return counter.getAsLong();
  }
}
