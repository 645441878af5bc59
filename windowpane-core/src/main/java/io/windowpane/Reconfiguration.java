package io.windowpane;

import java.util.List;

/** What {@link Windowpane#reconfigure} may change in a running limiter's quota: permits. */
final class Reconfiguration {

  private Reconfiguration() {}

  /**
   * Refuses {@code next} unless it differs from {@code current} only in its limits' permits
   * and names.
   *
   * @throws IllegalArgumentException saying what else changed
   */
  static void check(String name, Quota current, Quota next) {
    List<Limit> was = current.limits();
    List<Limit> now = next.limits();
    String problem = null;
    if (was.size() != now.size()) {
      problem = "it has " + now.size() + " limits, the limiter " + was.size();
    } else {
      for (int i = 0; i < was.size() && problem == null; i++) {
        WindowSpec a = was.get(i).window();
        WindowSpec b = now.get(i).window();
        if (!a.equals(b)) {
          problem = "limit " + (i + 1) + " is over " + b + ", was over " + a;
        }
      }
    }
    if (problem == null && current.topKeys() != next.topKeys()) {
      problem = "its top keys are " + next.topKeys() + ", were " + current.topKeys();
    }
    if (problem == null && !current.leasing().equals(next.leasing())) {
      problem = "its leasing is " + next.leasing().map(Object::toString).orElse("off")
          + ", was " + current.leasing().map(Object::toString).orElse("off");
    }
    if (problem != null) {
      throw new IllegalArgumentException("quota of limiter '" + name + "' may change only in "
          + "its limits' permits (and names) while it runs, keeping the number of limits, "
          + "their order and windows, top keys and leasing; " + problem
          + ": use a new limiter name or restart for that");
    }
  }
}
