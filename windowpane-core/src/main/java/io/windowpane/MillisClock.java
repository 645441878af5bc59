package io.windowpane;

/**
 * The time source of an engine: epoch milliseconds, read once per operation.
 *
 * <p>Injected as a primitive-returning function so that the hot path never boxes. Engines read
 * it once per call, outside any compare-and-swap loop; a clock that steps backwards is tolerated
 * (an operation that reads an earlier time than one already seen for the same window is treated
 * as happening at the newest pane, which can only make a limit stricter, never looser).
 */
@FunctionalInterface
public interface MillisClock {

  /** Returns the current time in milliseconds since the epoch. */
  long millis();

  /** The system wall clock, {@link System#currentTimeMillis()}. */
  static MillisClock system() {
    return System::currentTimeMillis;
  }
}
