package io.windowpane;

/**
 * A record refused because an exact statistics window already holds its
 * {@link StatsSpec#maxValues() maxValues} values for the key: nothing was recorded. Use a
 * histogram window, or raise the bound, for keys that see more values per window.
 */
public class CapacityExceededException extends WindowpaneException {

  private static final long serialVersionUID = 1L;

  public CapacityExceededException(String message) {
    super(message);
  }
}
