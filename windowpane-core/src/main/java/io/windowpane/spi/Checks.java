package io.windowpane.spi;

import java.util.List;

/**
 * Argument checks of the API classes, for engines and their builders to check their own options
 * with the same rules and messages (the API has checked keys, names and counts before a store
 * sees them). Every failure is an {@link IllegalArgumentException} naming the argument and its
 * allowed range, thrown before anything changes.
 */
public final class Checks {

  /** Longest key accepted, in UTF-16 chars: keeps backend keys and log lines bounded. */
  public static final int MAX_KEY_LENGTH = 256;

  /** Longest counter or limiter name. */
  public static final int MAX_NAME_LENGTH = 64;

  /** Most keys in one batch call. */
  public static final int MAX_BATCH = 10_000;

  private Checks() {}

  /** Checks a key: not null, 1 to {@value #MAX_KEY_LENGTH} chars. */
  public static String key(String key) {
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    int length = key.length();
    if (length == 0 || length > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException(
          "key must be 1 to " + MAX_KEY_LENGTH + " characters long, was " + length);
    }
    return key;
  }

  /** Checks every key of a batch, and the batch size. */
  public static List<String> keys(List<String> keys) {
    if (keys == null) {
      throw new IllegalArgumentException("keys must not be null");
    }
    if (keys.size() > MAX_BATCH) {
      throw new IllegalArgumentException(
          "keys must hold at most " + MAX_BATCH + " keys, was " + keys.size());
    }
    for (int i = 0; i < keys.size(); i++) {
      try {
        key(keys.get(i));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("keys[" + i + "]: " + e.getMessage(), e);
      }
    }
    return keys;
  }

  /** Checks a counter or limiter name: 1 to 64 chars of {@code [A-Za-z0-9_.:-]}. */
  public static String name(String name) {
    return name(name, false);
  }

  /** Checks a limit's name: 1 to 64 chars of {@code [A-Za-z0-9_.:/-]} (default names hold '/'). */
  public static String limitName(String name) {
    return name(name, true);
  }

  /**
   * Checks an id such as a release id: 1 to 64 chars of {@code [A-Za-z0-9_.:-]}, the rules of a
   * name, with {@code argument} named in the message.
   */
  public static String id(String argument, String id) {
    return name(argument, id, false);
  }

  private static String name(String name, boolean slash) {
    return name("name", name, slash);
  }

  private static String name(String argument, String name, boolean slash) {
    String allowed = slash ? "[A-Za-z0-9_.:/-]" : "[A-Za-z0-9_.:-]";
    if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          argument + " must be 1 to " + MAX_NAME_LENGTH + " characters of " + allowed + ", was "
              + (name == null ? "null" : "'" + name + "'"));
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '_' || c == '.' || c == ':' || c == '-' || (slash && c == '/');
      if (!ok) {
        throw new IllegalArgumentException(
            argument + " must be 1 to " + MAX_NAME_LENGTH + " characters of " + allowed
                + ", was '" + name + "'");
      }
    }
    return name;
  }

  /** Checks a value is finite: not NaN, not infinite. */
  public static double finite(String argument, double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException(
          argument + " must be a finite number (not NaN or infinite), was " + value);
    }
    return value;
  }

  /** Checks a batch of values: 1 to {@value #MAX_BATCH} finite numbers; returns a copy. */
  public static double[] finite(double[] values) {
    if (values == null || values.length == 0 || values.length > MAX_BATCH) {
      throw new IllegalArgumentException("values must hold 1 to " + MAX_BATCH + " values, was "
          + (values == null ? "null" : values.length));
    }
    double[] copy = values.clone();
    for (int i = 0; i < copy.length; i++) {
      finite("values[" + i + "]", copy[i]);
    }
    return copy;
  }

  /** Checks {@code min <= value <= max}. */
  public static long inRange(String argument, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          argument + " must be in [" + min + ", " + max + "], was " + value);
    }
    return value;
  }

  /**
   * Checks a duration is not null and lies in {@code [minMillis, maxMillis]} ms (truncated to whole ms); returns it
   * in ms. Durations too long for a {@code long} of ms are reported out of range, not overflowed.
   */
  public static long millis(String argument, java.time.Duration value, long minMillis,
      long maxMillis) {
    if (value == null) {
      throw new IllegalArgumentException(argument + " must not be null");
    }
    long millis;
    try {
      millis = value.toMillis();
    } catch (ArithmeticException e) {
      millis = Long.MAX_VALUE;
    }
    if (millis < minMillis || millis > maxMillis) {
      throw new IllegalArgumentException(argument + " must be in [" + minMillis + " ms, "
          + maxMillis + " ms], was " + value);
    }
    return millis;
  }

  /** Checks an argument is not null. */
  public static <T> T notNull(String argument, T value) {
    if (value == null) {
      throw new IllegalArgumentException(argument + " must not be null");
    }
    return value;
  }
}
