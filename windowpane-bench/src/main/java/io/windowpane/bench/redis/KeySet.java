package io.windowpane.bench.redis;

import java.util.SplittableRandom;

/**
 * The keys of one scenario and, per caller thread, a precomputed sequence of key indexes, so the
 * measured loop draws no random numbers and builds no strings.
 *
 * @param name the scenario as reported ({@code hot-key}, {@code 10000-keys})
 * @param keys the keys, before any contender's namespace
 */
public record KeySet(String name, String[] keys) {

  /** Length of each thread's index sequence, a power of two; it is cycled through. */
  static final int SEQUENCE = 1 << 16;

  /** One key, {@code "hot"}, that every thread uses. */
  public static KeySet hotKey() {
    return new KeySet("hot-key", new String[] {"hot"});
  }

  /** {@code count} keys {@code k0 .. k(count-1)}, drawn uniformly at random. */
  public static KeySet uniform(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("keys: expected at least 1, got " + count);
    }
    String[] keys = new String[count];
    for (int i = 0; i < count; i++) {
      keys[i] = "k" + i;
    }
    return new KeySet(count + "-keys", keys);
  }

  /** Key indexes for caller thread {@code thread}: uniform over the keys, seeded by the thread. */
  public int[] sequence(int thread) {
    int[] indexes = new int[keys.length == 1 ? 1 : SEQUENCE];
    SplittableRandom random = new SplittableRandom(0x5EED_0000L + thread);
    for (int i = 0; i < indexes.length; i++) {
      indexes[i] = keys.length == 1 ? 0 : random.nextInt(keys.length);
    }
    return indexes;
  }
}
