package io.windowpane.bench.redis;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.redis.RedisEngine;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/*
 * Design note. One redis-server, one engine on a manual clock (client time), its memory guard
 * held at WARN from the start (levels at 0.1% of a 1 GiB budget), so every write carries the
 * coarsening flag: the real path. Each level k gets windows of their own whose minPanes is P / k,
 * so they coarsen to exactly k and stay there. Events arrive evenly, 10 a second, for three
 * windows: the keys step to k within the first two (one step per window), and the third, written
 * wholly at k, is the one measured: after every event, the count against the exact count of
 * (t - W, t], and the histogram's median and p99 against the exact quantiles of the values in
 * (t - W, t]. At the end every key is sized with MEMORY USAGE key SAMPLES 0.
 */

/**
 * Bytes per key and error of adaptive windows at each coarsening level: a panes limit, a counter
 * and a histogram statistics window of {@code W = 60 s} in {@code P = 60} panes, adaptive down
 * to 15 (levels k = 1, 2, 4), each fed 10 events a second (statistics: lognormal values) for
 * three windows. Prints per level the panes, the bytes of each key (statistics: hash plus
 * aggregate), the count's mean and worst undercount against the exact count, the worst relative
 * error of the median and p99 against the exact quantiles of the values the window holds (the
 * histogram's accuracy), and the worst relative difference between those and the exact
 * quantiles of {@code (t - W, t]} (the window's coarser edge).
 *
 * <p>Run: {@code mvn -B -q -DskipTests package -pl windowpane-bench -am} then
 * {@code java -cp windowpane-bench/target/benchmarks.jar io.windowpane.bench.redis.AdaptiveStudy}.
 * A few seconds; starts and stops its own redis-server; deterministic but for the bytes, which
 * follow the Redis version (its hash encodings).
 */
public final class AdaptiveStudy {

  private static final long W = 60_000;
  private static final int P = 60;
  private static final int[] LEVELS = {1, 2, 4};
  private static final long STEP = 100; // 10 events a second
  private static final long T0 = 1_700_000_000_000L;

  private AdaptiveStudy() {}

  public static void main(String[] args) {
    java.util.logging.Logger.getLogger("io.lettuce").setLevel(java.util.logging.Level.WARNING);
    System.setProperty("jdk.system.logger.level", "ERROR");
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client()) {
      ManualClock clock = ManualClock.at(T0);
      RedisEngine engine = RedisEngine.builder().uri(redis.uri()).clock(clock)
          .expiryGrace(Duration.ofMinutes(10)).memoryBudget(1L << 30)
          .memoryLevels(0.001, 0.99, 0).memoryCheckInterval(Duration.ofMinutes(1)).build();
      try (Windowpane wp = Windowpane.using(engine)) {
        engine.checkMemory().orElseThrow().toCompletableFuture().join();
        System.out.printf(Locale.ROOT, "guard: %s%n", engine.memoryStatus().orElseThrow().level());
        System.out.println("| k | panes | limit B | counter B | stats B (hash + aggregate) |"
            + " count under, mean / worst | median / p99 vs held values | median / p99, held vs"
            + " (t - W, t] | v |");
        for (int k : LEVELS) {
          clock.set(T0);
          study(wp, admin, clock, k);
        }
      }
    }
  }

  private static void study(Windowpane wp, RespClient admin, ManualClock clock, int k) {
    WindowSpec spec = WindowSpec.panes(Duration.ofMillis(W), P).withAdaptive(P / k);
    RateLimiter limiter = wp.limiter("l" + k, Limit.of(1L << 30, spec));
    WindowCounter counter = wp.counter("c" + k, spec);
    WindowStats stats = wp.stats("s" + k, StatsSpec.histogram(Duration.ofMillis(W), P)
        .withAdaptive(P / k));
    Random random = new Random(7 + k);
    int n = (int) (3 * W / STEP);
    long[] times = new long[n];
    double[] values = new double[n];
    double underSum = 0;
    double underWorst = 0;
    double[] accuracyWorst = new double[2]; // median, p99: against the values the window holds
    double[] edgeWorst = new double[2]; // median, p99: those values' against (t - W, t]
    int probes = 0;
    for (int i = 0; i < n; i++) {
      clock.set(T0 + 37 + i * STEP);
      times[i] = clock.millis();
      values[i] = Math.exp(3 + random.nextGaussian());
      limiter.tryAcquire("k", 1);
      long count = counter.add("k", 1);
      stats.record("k", values[i]);
      if (times[i] >= T0 + 2 * W) {
        double[] inWindow = window(times, values, i);
        double exact = inWindow.length;
        double under = (exact - count) / exact;
        underSum += under;
        underWorst = Math.max(underWorst, under);
        if (i % 10 == 0) {
          Summary s = stats.summary("k");
          // a panes window forgets the oldest values first: it holds the newest s.count()
          double[] held = Arrays.copyOfRange(values, i + 1 - (int) s.count(), i + 1);
          double[] qs = {0.5, 0.99};
          for (int j = 0; j < 2; j++) {
            accuracyWorst[j] = Math.max(accuracyWorst[j],
                relative(s.quantile(qs[j]), quantile(held, qs[j])));
            edgeWorst[j] = Math.max(edgeWorst[j],
                relative(quantile(held, qs[j]), quantile(inWindow, qs[j])));
          }
        }
        probes++;
      }
    }
    String counterKey = "wp1:c:{c" + k + ":k:2}:p" + W + "/" + P;
    String limitKey = "wp1:r:{l" + k + ":k:2}:0:p" + W + "/" + P;
    String statsKey = ((List<?>) admin.command("KEYS", "wp1:s:{s" + k + ":k:2}:h*")).stream()
        .map(String.class::cast).filter(name -> !name.endsWith(":a")).findFirst().orElseThrow();
    String v = (String) admin.command("HGET", counterKey, "v");
    System.out.printf(Locale.ROOT, "| %d | %d | %d | %d | %d (%d + %d) | %.2f%% / %.2f%% | %.2f%%"
        + " / %.2f%% | %.2f%% / %.2f%% | %s |%n", k, P / k, memory(admin, limitKey),
        memory(admin, counterKey), memory(admin, statsKey) + memory(admin, statsKey + ":a"),
        memory(admin, statsKey), memory(admin, statsKey + ":a"), 100 * underSum / probes,
        100 * underWorst, 100 * accuracyWorst[0], 100 * accuracyWorst[1], 100 * edgeWorst[0],
        100 * edgeWorst[1], v);
  }

  private static double[] window(long[] times, double[] values, int last) {
    List<Double> in = new ArrayList<>();
    for (int j = 0; j <= last; j++) {
      if (times[j] > times[last] - W) {
        in.add(values[j]);
      }
    }
    return in.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** The value of 0-based rank round(q (n - 1)), as {@link Summary#quantile}. */
  private static double quantile(double[] values, double q) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[(int) Math.round(q * (sorted.length - 1))];
  }

  private static double relative(double estimate, double exact) {
    return Math.abs(estimate - exact) / Math.abs(exact);
  }

  private static long memory(RespClient admin, String key) {
    return (Long) admin.command("MEMORY", "USAGE", key, "SAMPLES", "0");
  }
}
