package io.windowpane.internal.topkeys;

import java.util.Arrays;
import java.util.Random;

/** Seeded Zipf-distributed keys "k0", "k1", ... : key i has weight 1 / (i + 1)^s. For tests. */
final class Zipf {

  private final double[] cdf;
  private final Random random;

  Zipf(int keys, double exponent, long seed) {
    cdf = new double[keys];
    double sum = 0;
    for (int i = 0; i < keys; i++) {
      sum += 1 / Math.pow(i + 1, exponent);
      cdf[i] = sum;
    }
    for (int i = 0; i < keys; i++) {
      cdf[i] /= sum;
    }
    random = new Random(seed);
  }

  String next() {
    int i = Arrays.binarySearch(cdf, random.nextDouble());
    return "k" + (i >= 0 ? i : Math.min(cdf.length - 1, -i - 1));
  }

  Random random() {
    return random;
  }
}
