package io.windowpane.testkit.local;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.LimiterConformance;

/** The local engine against the {@link LimiterConformance} part of the conformance suite. */
class LocalLimiterConformanceTest extends LimiterConformance {

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return Windowpane.localBuilder().clock(clock).build();
  }
}
