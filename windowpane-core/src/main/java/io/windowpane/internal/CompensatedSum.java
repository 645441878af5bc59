package io.windowpane.internal;

/**
 * A running sum of doubles with Neumaier's compensation (Kahan-Babuska): the rounding error of
 * every addition is captured exactly (Knuth's TwoSum) and kept in a second double, so the result
 * is within about {@code 2 * ulp(sum) + n * 2^-106 * sum|x|} of the exact sum instead of naive
 * summation's {@code n * 2^-53 * sum|x|}. Not thread-safe.
 */
public final class CompensatedSum {

  private double high;
  private double low;

  /** Adds {@code x}. */
  public void add(double x) {
    double s = high + x;
    low += error(high, x, s);
    high = s;
  }

  /** The rounding error of {@code s = a + b}: exactly {@code (a + b) - s} (TwoSum). */
  public static double error(double a, double b, double s) {
    double bv = s - a;
    double av = s - bv;
    return (a - av) + (b - bv);
  }

  /** The sum; ±Infinity if the exact sum is beyond the range of a double. */
  public double value() {
    double s = high + low;
    return Double.isNaN(s) ? high : s; // Infinity - Infinity in the error term: report the overflow
  }
}
