package io.windowpane.redis.internal;

import io.windowpane.MillisClock;

/**
 * The time argument of every call: empty for the server's clock ({@code TIME} inside the
 * function), or the client's milliseconds, optionally with a grace period for physical TTLs
 * ({@code "<ms>+<grace>"}).
 */
@FunctionalInterface
public interface TimeArg {

  /** The server's clock: the function reads {@code TIME}. */
  TimeArg SERVER = () -> "";

  /** The value of ARGV[1] for a call made now. */
  String now();

  /**
   * The client's {@code clock}, read once per call; keys physically outlive their logical
   * expiry by {@code graceMillis} (the clock need not run with the server's).
   */
  static TimeArg of(MillisClock clock, long graceMillis) {
    if (graceMillis == 0) {
      return () -> Long.toString(clock.millis());
    }
    String suffix = "+" + graceMillis;
    return () -> clock.millis() + suffix;
  }
}
