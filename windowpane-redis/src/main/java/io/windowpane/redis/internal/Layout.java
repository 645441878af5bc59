package io.windowpane.redis.internal;

import io.windowpane.LogBuckets;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * Key names and ARGV of the protocol (docs/redis-protocol.md). Every key of one logical key
 * shares the hash tag {@code {name:key:N}}, N being the name's length in UTF-8 bytes, so a
 * cluster keeps them in one slot:
 *
 * <pre>
 *   counter  wp1:c:{name:key:N}:SPEC        (log: also wp1:c:{name:key:N}:SPEC:m)
 *   limiter  wp1:r:{name:key:N}:I:SPEC      (I = the limit's position in the quota)
 *   SPEC     p{W}/{P} | w{W} | l{W}         (W in ms)
 *   stats    wp1:s:{name:key:N}:h{W}/{P}/{A}/{I}/{S}  (histogram: the panes' hash)
 *            ...:h{W}/{P}/{A}/{I}/{S}:a               (and its window aggregate, a hash)
 *            wp1:x:{name:key:N}:x{W} and ...:x{W}:m   (exact: sorted set and meta hash)
 * </pre>
 *
 * Design note: why N. Names and keys are the user's and may hold ':' (and '}'), so
 * {@code {name:key}} alone is ambiguous: limiter "a" with key "b:c" and limiter "a:b" with key
 * "c" would share {@code {a:b:c}}, and so their state. N makes the name unambiguous: the part
 * after the tag never holds '}', so the last '}' ends the tag's text; N is the text after its
 * last ':'; the name is its first N bytes, the key what lies between. N goes last, not first, so
 * that a key holding '}' still ends the hash tag early where the user meant it to: limiter
 * "pool" with key "acme:}x" and limiter "pool:acme" with key "}y" share the slot of
 * {@code {pool:acme:}} (one wp_group call on a cluster), without sharing a key. N is computed
 * once per store, outside the hot path.
 *
 * A histogram's key names its bucket geometry as the functions receive it: accuracy A (the
 * shortest plain decimal of the double), minIndex I and span S (see {@link #histogramArgs}).
 * Two specs with the same geometry share state, rightly: they bucket every value alike. A
 * client that computes another minIndex or span (its logarithm off by an ulp) reads and writes
 * another key instead of misreading this one's buckets.
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

  /** {@code :N}}: the end of the hash tag's text, N the length of {@code name} in UTF-8 bytes. */
  static String tagEnd(String name) {
    return ":" + name.getBytes(StandardCharsets.UTF_8).length + "}";
  }

  /** The key-name part after the user's key of a counter {@code name} over {@code spec}. */
  static String counterSuffix(String name, WindowSpec spec) {
    return tagEnd(name) + ":" + suffix(spec);
  }

  /** The key-name part after the user's key of limit {@code index} of quota {@code name}. */
  static String limitSuffix(String name, int index, WindowSpec spec) {
    return tagEnd(name) + ":" + index + ":" + suffix(spec);
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
    out[at + 2] = panesArg(spec);
  }

  /**
   * The panes argument: {@code P}, or {@code P:minPanes} for an adaptive window (the functions
   * then coarsen its key under memory pressure). Not part of any key name: a key's resolution
   * is stored with it, so callers declaring the window with and without the option share it.
   */
  static String panesArg(WindowSpec spec) {
    return spec.adaptiveMinPanes().isPresent()
        ? spec.panes() + ":" + spec.adaptiveMinPanes().getAsInt()
        : Integer.toString(spec.panes());
  }

  /** {@code wp1:s:{name:} or wp1:x:{name:}: the start of a statistics window's keys. */
  static String statsPrefix(String name, StatsSpec spec) {
    return prefix(spec.isExact() ? 'x' : 's', name);
  }

  /** The key-name part after the user's key of statistics window {@code name} over {@code spec}. */
  static String statsSuffix(String name, StatsSpec spec) {
    if (spec.isExact()) {
      return tagEnd(name) + ":x" + spec.window().windowMillis();
    }
    String[] a = histogramArgs(spec);
    return tagEnd(name) + ":h" + a[0] + "/" + spec.window().panes() + "/" + a[2] + "/" + a[3]
        + "/" + a[4];
  }

  /**
   * The five spec arguments of a histogram window: W, P (with its minPanes when adaptive: see
   * {@link #panesArg}), relative accuracy, minIndex, span ({@link LogBuckets#minIndex()} and
   * {@link LogBuckets#maxKey()}).
   */
  static String[] histogramArgs(StatsSpec spec) {
    LogBuckets b = spec.buckets();
    double a = b.relativeAccuracy();
    int minIndex = b.minIndex();
    return new String[] {Long.toString(spec.window().windowMillis()),
        panesArg(spec.window()),
        BigDecimal.valueOf(a).stripTrailingZeros().toPlainString(), Integer.toString(minIndex),
        Integer.toString(b.maxKey())};
  }
}
