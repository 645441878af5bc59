package io.windowpane.bench.stats;

import java.util.SplittableRandom;

/**
 * The values every statistics benchmark records: latencies in milliseconds drawn from a lognormal
 * distribution (median {@value #MEDIAN_MILLIS} ms, sigma {@value #SIGMA}, so p99 is about 205 ms),
 * rounded to the microsecond, precomputed so the measured loops draw no random numbers. A
 * sequence of {@value #SIZE} values is cycled through; each seed gives its own sequence.
 *
 * <p>Why lognormal: request latencies are roughly lognormal, and the spread matters to a
 * histogram (at 1 % accuracy, sigma 1 occupies a few hundred buckets) while it does not matter
 * to a raw array. Why rounded: a raw sorted set stores each value as a string, and
 * {@code "23.457"} is what a latency measured in microseconds looks like.
 */
public final class LatencyValues {

  /** Median of the distribution, in milliseconds. */
  public static final double MEDIAN_MILLIS = 20;

  /** Sigma of the underlying normal distribution. */
  public static final double SIGMA = 1.0;

  /** Length of the precomputed sequence, a power of two. */
  public static final int SIZE = 1 << 16;

  private static final int MASK = SIZE - 1;

  private final double[] values = new double[SIZE];

  private LatencyValues(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < SIZE; i++) {
      double v = MEDIAN_MILLIS * Math.exp(SIGMA * gaussian(random));
      values[i] = Math.max(0.001, Math.round(v * 1000) / 1000.0);
    }
  }

  /** The sequence of {@code seed}. */
  public static LatencyValues seeded(long seed) {
    return new LatencyValues(seed);
  }

  /** Value number {@code i} of the sequence (cycled). */
  public double at(long i) {
    return values[(int) (i & MASK)];
  }

  /** Values {@code from} to {@code from + count - 1} of the sequence, in a new array. */
  public double[] slice(long from, int count) {
    double[] out = new double[count];
    for (int i = 0; i < count; i++) {
      out[i] = at(from + i);
    }
    return out;
  }

  /** A standard normal draw (Box-Muller; SplittableRandom has no nextGaussian on Java 17). */
  private static double gaussian(SplittableRandom random) {
    double u = 1 - random.nextDouble(); // (0, 1]
    double v = random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
