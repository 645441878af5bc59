package io.windowpane.internal.local;

import java.math.BigInteger;

/**
 * {@code a * b / d} for non-negative longs without overflow: exact through a 128-bit product
 * ({@link Math#multiplyHigh}), falling back to {@link BigInteger} only when the product passes
 * 2^63 (large limits over long weighted windows). Results past {@link Long#MAX_VALUE} saturate.
 */
final class WideMath {

  private WideMath() {}

  static long mulDivFloor(long a, long b, long d) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if (hi == 0 && lo >= 0) {
      return lo / d;
    }
    BigInteger q = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b))
        .divide(BigInteger.valueOf(d));
    return q.bitLength() < 64 ? q.longValue() : Long.MAX_VALUE;
  }

  static long mulDivCeil(long a, long b, long d) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if (hi == 0 && lo >= 0) {
      long q = lo / d;
      return q * d == lo ? q : q + 1;
    }
    BigInteger[] qr = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b))
        .divideAndRemainder(BigInteger.valueOf(d));
    BigInteger q = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
    return q.bitLength() < 64 ? q.longValue() : Long.MAX_VALUE;
  }
}
