package io.windowpane.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as the configuration writes them: a whole number and a unit, {@code ms}, {@code s},
 * {@code m}, {@code h} or {@code d} ({@code 500ms}, {@code 1s}, {@code 10m}), or the ISO-8601
 * form Spring and {@link Duration#parse} use ({@code PT10S}, {@code PT1M30S}, {@code P1D}), in
 * whole milliseconds and not negative. No fractions, no sign, no space, no compound short forms
 * ({@code 1m30s}: write {@code 90s} or {@code PT1M30S}). A bare number is refused because its
 * unit would be a guess.
 */
public final class Durations {

  private static final Pattern FORM = Pattern.compile("([0-9]+)(ms|s|m|h|d)");
  private static final Pattern BARE = Pattern.compile("[-+]?[0-9][0-9_]*(\\.[0-9]*)?");

  private Durations() {}

  /**
   * The duration {@code text} denotes.
   *
   * @throws IllegalArgumentException with a message that completes "{@code path} ...", e.g.
   *     "must be a duration with a unit, e.g. 10s; add a unit to 10 (ms, s, m, h or d)"
   */
  public static Duration parse(String text) {
    if (text.length() > 1 && (text.charAt(0) == 'P' || text.charAt(0) == 'p')) {
      return iso(text);
    }
    Matcher m = FORM.matcher(text);
    if (!m.matches()) {
      if (BARE.matcher(text).matches()) {
        boolean positive = text.matches("\\+?0*[1-9][0-9_]*(\\.[0-9]*)?");
        String digits = text.startsWith("+") ? text.substring(1) : text;
        throw new IllegalArgumentException("must be a duration with a unit, e.g. "
            + (positive && digits.matches("[0-9]+") ? digits + "s or " + digits + "ms"
                : "10s or 500ms") + ": add a unit (ms, s, m, h or d) to " + text);
      }
      throw new IllegalArgumentException("must be a duration: a whole number and a unit (ms, s,"
          + " m, h or d), e.g. 500ms, 10s, 5m, or ISO-8601 such as PT10S; was '" + text + "'");
    }
    long unitMillis = unitMillis(m.group(2));
    try {
      return Duration.ofMillis(Math.multiplyExact(Long.parseLong(m.group(1)), unitMillis));
    } catch (ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException("is too long a duration, was " + text);
    }
  }

  /** The ISO-8601 form ({@code PT10S}): whole milliseconds, not negative. */
  private static Duration iso(String text) {
    Duration d;
    try {
      d = Duration.parse(text);
    } catch (java.time.format.DateTimeParseException | ArithmeticException e) {
      throw new IllegalArgumentException("must be a duration: a whole number and a unit (ms, s,"
          + " m, h or d), e.g. 500ms, 10s, 5m, or ISO-8601 such as PT10S; was '" + text + "'");
    }
    if (d.isNegative() || d.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException("must be a duration of whole milliseconds, not"
          + " negative, was " + text);
    }
    return d;
  }

  private static long unitMillis(String unit) {
    switch (unit) {
      case "ms":
        return 1;
      case "s":
        return 1_000;
      case "m":
        return 60_000;
      case "h":
        return 3_600_000;
      default:
        return 86_400_000;
    }
  }

  /** {@code d} in the largest unit that divides it: 250ms, 1s, 90s, 10m, 1h, 2d; zero is 0s. */
  public static String format(Duration d) {
    long millis = d.toMillis();
    return millis == 0 ? "0s" : io.windowpane.spi.Durations.format(millis);
  }
}
