package io.windowpane;

import java.util.Objects;

/**
 * One of a window's heaviest keys, as a top-keys sketch estimates it over the current window.
 * Immutable.
 *
 * <p>{@link #count()} never under-counts: the key's true count over the window lies in
 * {@code [count - maxError, count]}. {@link #maxError()} is at most {@code N / k}, for {@code N}
 * the events of the window and {@code k} the window's counters (see
 * {@link WindowSpec#withTopKeys}); it is 0 when the key was counted exactly (fewer distinct keys
 * than counters).
 */
public final class TopKey {

  /** Counters per pane when top keys are turned on without a number. */
  public static final int DEFAULT_COUNTERS = 100;

  /** Most counters per pane. */
  public static final int MAX_COUNTERS = 10_000;

  private final String key;
  private final long count;
  private final long maxError;

  /** A key with its estimated count and the estimate's largest over-count. */
  public TopKey(String key, long count, long maxError) {
    this.key = Objects.requireNonNull(key, "key");
    if (count < 0 || maxError < 0 || maxError > count) {
      throw new IllegalArgumentException("need 0 <= maxError <= count, were maxError "
          + maxError + " and count " + count);
    }
    this.count = count;
    this.maxError = maxError;
  }

  /** The key. */
  public String key() {
    return key;
  }

  /** The estimated count over the window: an upper bound of the true count. */
  public long count() {
    return count;
  }

  /** How much {@link #count()} may over-count: the true count is at least count - maxError. */
  public long maxError() {
    return maxError;
  }

  /** {@code count - maxError}: a lower bound of the true count. */
  public long lowerBound() {
    return count - maxError;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof TopKey)) {
      return false;
    }
    TopKey that = (TopKey) o;
    return key.equals(that.key) && count == that.count && maxError == that.maxError;
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, count, maxError);
  }

  @Override
  public String toString() {
    return key + "=" + count + (maxError == 0 ? "" : " (-" + maxError + ")");
  }
}
