package io.windowpane.internal.local;

/** The state of one key of a statistics window: its window plus the key's expiry clock. */
final class StatsState extends KeyState {

  private static final Window[] NO_WINDOWS = new Window[0];

  final StatsWindow window;

  StatsState(StatsWindow window, long now) {
    super(NO_WINDOWS, now);
    this.window = window;
  }
}
