package io.windowpane.redis.internal;

import io.windowpane.LogBuckets;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import java.math.BigDecimal;

/**
 * Key names and ARGV of the protocol (docs/redis-protocol.md). Every key of one logical key
 * shares the hash tag {@code {name:key}}, so a cluster keeps them in one slot:
 *
 * <pre>
 *   counter  wp1:c:{name:key}:SPEC          (log: also wp1:c:{name:key}:SPEC:m)
 *   limiter  wp1:r:{name:key}:I:SPEC        (I = the limit's position in the quota)
 *   SPEC     p{W}/{P} | w{W} | l{W}         (W in ms)
 *   stats    wp1:s:{name:key}:h{W}/{P}/{A}/{I}/{S}    (histogram: the panes' hash)
 *            ...:h{W}/{P}/{A}/{I}/{S}:a             (and its window aggregate, a hash)
 *            wp1:x:{name:key}:x{W} and ...:x{W}:m   (exact: sorted set and meta hash)
 * </pre>
 *
 * A histogram's key names its bucket geometry as the functions receive it: accuracy A (the
 * shortest plain decimal of the double), minIndex I and span S (see {@link #histogramArgs}).
 * Two specs with the same geometry share state, rightly: they bucket every value alike. A
 * client that computes another minIndex or span (its logarithm off by an ulp) reads and writes
 * another key instead of misreading this one's buckets.
 *
 * A key containing '}' ends the hash tag early; all keys of that logical key still share it.
 */
final class Layout {

  /** Appended to a histogram window's hash name: its window aggregate (a hash). */
  static final String AGGREGATE = ":a";

  private Layout() {}

  /** The algorithm's code in ARGV: p, w or l. */
  static String code(WindowSpec spec) {
    switch (spec.algorithm()) {
      case SLIDING_PANES:
        return "p";
      case SLIDING_WEIGHTED:
        return "w";
      default:
        return "l";
    }
  }

  /** How many keys the window takes: 2 for a log (set and meta hash), else 1. */
  static int keyCount(WindowSpec spec) {
    return "l".equals(code(spec)) ? 2 : 1;
  }

  private static String suffix(WindowSpec spec) {
    String c = code(spec);
    return "p".equals(c) ? "p" + spec.windowMillis() + "/" + spec.panes()
        : c + spec.windowMillis();
  }

  /** The key-name part after the hash tag of a counter over {@code spec}. */
  static String counterSuffix(WindowSpec spec) {
    return "}:" + suffix(spec);
  }

  /** The key-name part after the hash tag of limit {@code index} of a quota. */
  static String limitSuffix(int index, WindowSpec spec) {
    return "}:" + index + ":" + suffix(spec);
  }

  /** Writes the keys of one window at {@code out[at..]}; returns the next free index. */
  static int keys(String[] out, int at, String tagged, String suffix, WindowSpec spec) {
    out[at] = tagged + suffix;
    if (keyCount(spec) == 2) {
      out[at + 1] = out[at] + ":m";
      return at + 2;
    }
    return at + 1;
  }

  /** {@code wp1:c:{name:} or wp1:r:{name:}: the start of every key, before the user's key. */
  static String prefix(char kind, String name) {
    return "wp1:" + kind + ":{" + name + ":";
  }

  /** The three spec arguments of a window: algorithm, window ms, panes. */
  static void specArgs(String[] out, int at, WindowSpec spec) {
    out[at] = code(spec);
    out[at + 1] = Long.toString(spec.windowMillis());
    out[at + 2] = Integer.toString(spec.panes());
  }

  /** {@code wp1:s:{name:} or wp1:x:{name:}: the start of a statistics window's keys. */
  static String statsPrefix(String name, StatsSpec spec) {
    return prefix(spec.isExact() ? 'x' : 's', name);
  }

  /** The key-name part after the hash tag of a statistics window over {@code spec}. */
  static String statsSuffix(StatsSpec spec) {
    if (spec.isExact()) {
      return "}:x" + spec.window().windowMillis();
    }
    String[] a = histogramArgs(spec);
    return "}:h" + a[0] + "/" + a[1] + "/" + a[2] + "/" + a[3] + "/" + a[4];
  }

  /**
   * The five spec arguments of a histogram window: W, P, relative accuracy, minIndex, span
   * ({@link LogBuckets#minIndex()} and {@link LogBuckets#maxKey()}).
   */
  static String[] histogramArgs(StatsSpec spec) {
    LogBuckets b = spec.buckets();
    double a = b.relativeAccuracy();
    int minIndex = b.minIndex();
    return new String[] {Long.toString(spec.window().windowMillis()),
        Integer.toString(spec.window().panes()),
        BigDecimal.valueOf(a).stripTrailingZeros().toPlainString(), Integer.toString(minIndex),
        Integer.toString(b.maxKey())};
  }
}
