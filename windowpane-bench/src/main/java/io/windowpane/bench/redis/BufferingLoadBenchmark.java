package io.windowpane.bench.redis;

import io.windowpane.BufferStats;
import io.windowpane.Buffering;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.redis.RedisEngine;
import io.windowpane.testkit.redis.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Buffered counters against one loopback Redis (docs/leasing.md, "Counters and statistics:
 * buffering"): {@code add}s/s on one hot key from {@code threads} threads of one JVM,
 * a {@code plain} counter (every add one function call) against the same counter
 * {@code buffered} with a staleness bound of 100 ms ({@code add} answered from the node's view,
 * events sent every 50 ms). After each run the counter is flushed and the count read back from
 * Redis must equal the adds made (printed as {@code exact}). Each mode runs {@code runs} times,
 * interleaved; the load average is printed before every run. Run:
 * <pre>
 * windowpane-bench/run-buffering-benchmark.sh [runs 3] [threads 16] [measured ms 10000]
 * </pre>
 */
public final class BufferingLoadBenchmark {

  private static final long WARMUP_MILLIS = 2_000;
  private static final Duration STALENESS = Duration.ofMillis(100);
  private static final WindowSpec SPEC = WindowSpec.panes(Duration.ofMinutes(10), 60);

  private BufferingLoadBenchmark() {}

  /** One run's figures. */
  record Run(double addsPerSecond, boolean exact, double localRatio, long lost, double load) {}

  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int threads = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    long measured = args.length > 2 ? Long.parseLong(args[2]) : 10_000;
    Map<String, List<Run>> results = new LinkedHashMap<>();
    try (RedisServer redis = RedisServer.start()) {
      System.out.printf(Locale.ROOT, "redis %s; 1 JVM x %d threads; hot key; warmup %d ms,"
          + " measured %d ms; staleness %d ms; %d runs each, interleaved%n", redis.uri(), threads,
          WARMUP_MILLIS, measured, STALENESS.toMillis(), runs);
      System.out.printf("machine: %d processors, %s%n",
          Runtime.getRuntime().availableProcessors(), System.getProperty("java.runtime.version"));
      for (int r = 0; r < runs; r++) {
        for (String mode : List.of("plain", "buffered")) {
          Run run = runOnce(redis.uri(), mode, threads, measured, "wpb" + r + mode);
          results.computeIfAbsent(mode, k -> new ArrayList<>()).add(run);
          System.out.printf(Locale.ROOT, "  run %d %-9s %,14.0f adds/s  exact %s  local %.4f"
                  + "  lost %,d  load %.2f%n", r + 1, mode, run.addsPerSecond(), run.exact(),
              run.localRatio(), run.lost(), run.load());
        }
      }
    }
    System.out.printf("%nadds/s, median [min, max] of the runs%n");
    double plain = median(results.get("plain"));
    for (Map.Entry<String, List<Run>> e : results.entrySet()) {
      double[] v = e.getValue().stream().mapToDouble(Run::addsPerSecond).sorted().toArray();
      System.out.printf(Locale.ROOT, "  %-9s %,14.0f [%,.0f, %,.0f]  %.2fx plain%n", e.getKey(),
          median(e.getValue()), v[0], v[v.length - 1], median(e.getValue()) / plain);
    }
  }

  private static Run runOnce(String uri, String mode, int threads, long measured, String name)
      throws Exception {
    double load = Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(uri).build());
        Windowpane reader = Windowpane.using(RedisEngine.builder().uri(uri).build())) {
      WindowCounter c = mode.equals("plain") ? wp.counter(name, SPEC)
          : wp.counter(name, SPEC.withBuffering(Buffering.of(STALENESS)));
      AtomicBoolean counting = new AtomicBoolean();
      AtomicBoolean stop = new AtomicBoolean();
      LongAdder measuredAdds = new LongAdder();
      LongAdder allAdds = new LongAdder();
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Thread w = new Thread(() -> {
          while (!stop.get()) {
            c.add("hot");
            allAdds.increment();
            if (counting.get()) {
              measuredAdds.increment();
            }
          }
        });
        w.start();
        workers.add(w);
      }
      Thread.sleep(WARMUP_MILLIS);
      counting.set(true);
      long start = System.nanoTime();
      Thread.sleep(measured);
      counting.set(false);
      double seconds = (System.nanoTime() - start) / 1e9;
      stop.set(true);
      for (Thread w : workers) {
        w.join();
      }
      c.flush();
      boolean exact = reader.counter(name, SPEC).count("hot") == allAdds.sum();
      BufferStats s = c.bufferStats().orElse(new BufferStats(0, 0, 0, 0, 0));
      return new Run(measuredAdds.sum() / seconds, exact, s.localAnswerRatio(), s.lostEvents(),
          load);
    }
  }

  private static double median(List<Run> runs) {
    double[] v = runs.stream().mapToDouble(Run::addsPerSecond).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
