package io.windowpane.internal;

import io.windowpane.Decision;

/**
 * Package-private operations of the API classes that the internal packages need, so they stay out
 * of the public API: each API class that lends one installs it here from its static initializer
 * (the JDK's "shared secrets" idiom). A caller holds an instance of that class, so the class is
 * initialized and the hook installed before any use.
 */
public final class ApiAccess {

  /** What {@link Decision} lends: stamping an answer with the failover member that gave it. */
  public interface Decisions {
    Decision answeredBy(Decision decision, String engine, boolean degraded);
  }

  private static volatile Decisions decisions;

  private ApiAccess() {}

  /** Installs {@link Decision}'s hook; once. */
  public static void decisions(Decisions hook) {
    if (decisions != null) {
      throw new IllegalStateException("Decision's hook is installed already");
    }
    decisions = hook;
  }

  /**
   * {@code decision} as answered by failover member {@code engine}, a fallback or last resort
   * when {@code degraded} ({@link Decision#engine()}, {@link Decision#degraded()}).
   */
  public static Decision answeredBy(Decision decision, String engine, boolean degraded) {
    return decisions.answeredBy(decision, engine, degraded);
  }
}
