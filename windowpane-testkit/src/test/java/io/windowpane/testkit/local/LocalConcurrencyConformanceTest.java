package io.windowpane.testkit.local;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConcurrencyConformance;

/** The local engine against the {@link ConcurrencyConformance} part of the conformance suite. */
class LocalConcurrencyConformanceTest extends ConcurrencyConformance {

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return Windowpane.localBuilder().clock(clock).build();
  }
}
