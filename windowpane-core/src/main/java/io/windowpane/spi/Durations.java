package io.windowpane.spi;

/**
 * Formats millisecond lengths the way people write them: 250ms, 1s, 90s, 10m, 1h, 2d. The
 * notation of windowpane's names and messages (a limit's default name is {@code "10/1s"}), for
 * engines and front ends to describe windows the same way.
 */
public final class Durations {

  private Durations() {}

  /** {@code millis} in the largest unit that divides it exactly. */
  public static String format(long millis) {
    if (millis % 86_400_000L == 0) {
      return millis / 86_400_000L + "d";
    }
    if (millis % 3_600_000L == 0) {
      return millis / 3_600_000L + "h";
    }
    if (millis % 60_000L == 0) {
      return millis / 60_000L + "m";
    }
    if (millis % 1000 == 0) {
      return millis / 1000 + "s";
    }
    return millis + "ms";
  }
}
