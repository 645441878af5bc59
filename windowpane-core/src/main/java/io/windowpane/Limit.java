package io.windowpane;

import io.windowpane.spi.Checks;
import io.windowpane.spi.Durations;
import java.util.Objects;

/**
 * One limit of a {@link Quota}: at most {@code permits} in any window of the given shape.
 * Immutable.
 *
 * <p>Ranges: {@code permits} from 1 to {@value #MAX_PERMITS} (2^40 - 1); for
 * {@link Algorithm#SLIDING_LOG}, whose memory per key is O(permits), at most
 * {@value #MAX_LOG_PERMITS}.
 */
public final class Limit {

  /** Largest limit: counts are kept in 40 bits per pane. */
  public static final long MAX_PERMITS = (1L << 40) - 1;

  /** Largest limit for an exact log window (memory per key grows with it). */
  public static final long MAX_LOG_PERMITS = 1L << 20;

  private final long permits;
  private final WindowSpec window;
  private final String name;

  private Limit(long permits, WindowSpec window, String name) {
    this.permits = permits;
    this.window = window;
    this.name = name;
  }

  /** At most {@code permits} in any {@code window}. Its name is e.g. {@code "10/1s"}. */
  public static Limit of(long permits, WindowSpec window) {
    Checks.notNull("window", window);
    long max = window.algorithm() == Algorithm.SLIDING_LOG ? MAX_LOG_PERMITS : MAX_PERMITS;
    Checks.inRange("permits", permits, 1, max);
    return new Limit(permits, window, permits + "/" + Durations.format(window.windowMillis()));
  }

  /** The same limit with another name (1 to 64 chars of {@code [A-Za-z0-9_.:-/]}). */
  public Limit named(String name) {
    return new Limit(permits, window, Checks.limitName(name));
  }

  /** The most permits any window may hold. */
  public long permits() {
    return permits;
  }

  /** The window this limit applies over. */
  public WindowSpec window() {
    return window;
  }

  /** A short name, for decisions, logs and headers. */
  public String name() {
    return name;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Limit)) {
      return false;
    }
    Limit that = (Limit) o;
    return permits == that.permits && window.equals(that.window) && name.equals(that.name);
  }

  @Override
  public int hashCode() {
    return Objects.hash(permits, window, name);
  }

  @Override
  public String toString() {
    return name + " " + window;
  }
}
