package io.windowpane;

/**
 * An event-time add or record refused by its window's {@link EventTime} rules: the event was
 * late (its pane had left the window at the engine's now) or too far ahead of the engine's
 * clock. Nothing was recorded. The message names {@code atMillis}, the range the engine allowed
 * at that moment and the engine's now. An {@link IllegalArgumentException}: the service answers
 * it with 400.
 */
public class EventTimeException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final boolean late;
  private final long atMillis;
  private final long nowMillis;

  public EventTimeException(String message, boolean late, long atMillis, long nowMillis) {
    super(message);
    this.late = late;
    this.atMillis = atMillis;
    this.nowMillis = nowMillis;
  }

  /** True for a late event, false for one too far ahead. */
  public boolean late() {
    return late;
  }

  /** The event's time. */
  public long atMillis() {
    return atMillis;
  }

  /** The engine's time when it refused the event. */
  public long nowMillis() {
    return nowMillis;
  }
}
