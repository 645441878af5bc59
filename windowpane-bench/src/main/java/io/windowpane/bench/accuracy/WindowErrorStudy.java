package io.windowpane.bench.accuracy;

import io.windowpane.ManualClock;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

/**
 * How far the approximate windows are from the exact sliding log: feeds the same simulated
 * traffic (seeded, on a manual clock) to a {@code SLIDING_LOG}, a {@code SLIDING_PANES} and a
 * {@code SLIDING_WEIGHTED} counter of one minute, samples all three at random instants and
 * prints the error of the approximations relative to the exact count.
 *
 * <p>Run: {@code java -cp windowpane-bench/target/benchmarks.jar
 * io.windowpane.bench.accuracy.WindowErrorStudy}
 */
public final class WindowErrorStudy {

  private static final long MINUTE = 60_000;

  private WindowErrorStudy() {}

  /** Traffic: the mean events per second at time t (ms since the start). */
  private interface Rate {
    double at(long t);
  }

  public static void main(String[] args) {
    System.out.println("window: 1 minute; panes: 60 panes of 1 s; samples: 20,000 per pattern;"
        + " error = |approx - exact| / exact, over samples with exact > 0");
    System.out.printf("%-34s %-9s %10s %10s %10s %10s %12s%n", "traffic", "window", "mean",
        "p50", "p99", "max", "bias(mean)");
    study("steady 100/s (Poisson)", t -> 100);
    study("ramp 0 -> 400/s over 10 min", t -> 400.0 * Math.min(1, t / (10.0 * MINUTE)));
    study("bursts: 20 s at 500/s, 40 s idle", t -> (t % MINUTE) < 20_000 ? 500 : 0);
    study("bursts: 5 s at 1000/s, 115 s idle", t -> (t % (2 * MINUTE)) < 5_000 ? 1000 : 0);
    study("sine 50..350/s, 3 min period", t -> 200 + 150 * Math.sin(2 * Math.PI * t / (3.0 * MINUTE)));
  }

  private static void study(String name, Rate rate) {
    Random random = new Random(42);
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    long start = clock.millis();
    try (Windowpane wp = Windowpane.localBuilder().clock(clock).build()) {
      WindowCounter log = wp.counter("log", WindowSpec.log(Duration.ofMinutes(1)));
      WindowCounter panes = wp.counter("panes", WindowSpec.panes(Duration.ofMinutes(1), 60));
      WindowCounter weighted = wp.counter("weighted", WindowSpec.weighted(Duration.ofMinutes(1)));
      int samples = 20_000;
      double[] paneErr = new double[samples];
      double[] weightedErr = new double[samples];
      double paneBias = 0;
      double weightedBias = 0;
      int taken = 0;
      long horizon = 30 * MINUTE;
      while (taken < samples) {
        long t = clock.millis() - start;
        // events of this millisecond: Poisson with the current rate
        double mean = rate.at(t) / 1000.0;
        int events = poisson(random, mean);
        if (events > 0) {
          log.add("k", events);
          panes.add("k", events);
          weighted.add("k", events);
        }
        if (t > 2 * MINUTE && random.nextDouble() < samples / (double) (horizon - 2 * MINUTE)) {
          long exact = log.count("k");
          if (exact > 0) {
            double p = (panes.count("k") - exact) / (double) exact;
            double w = (weighted.count("k") - exact) / (double) exact;
            paneErr[taken] = Math.abs(p);
            weightedErr[taken] = Math.abs(w);
            paneBias += p;
            weightedBias += w;
            taken++;
          }
        }
        clock.advance(1);
        if (t > 20 * horizon) {
          break;
        }
      }
      print(name, "panes", Arrays.copyOf(paneErr, taken), paneBias / taken);
      print("", "weighted", Arrays.copyOf(weightedErr, taken), weightedBias / taken);
    }
  }

  private static int poisson(Random random, double mean) {
    if (mean <= 0) {
      return 0;
    }
    double l = Math.exp(-mean);
    int k = 0;
    double p = 1;
    do {
      k++;
      p *= random.nextDouble();
    } while (p > l);
    return k - 1;
  }

  private static void print(String name, String window, double[] errors, double bias) {
    Arrays.sort(errors);
    double mean = Arrays.stream(errors).average().orElse(0);
    System.out.printf("%-34s %-9s %9.2f%% %9.2f%% %9.2f%% %9.2f%% %11.2f%%%n", name, window,
        100 * mean, 100 * errors[errors.length / 2], 100 * errors[(int) (errors.length * 0.99)],
        100 * errors[errors.length - 1], 100 * bias);
  }
}
