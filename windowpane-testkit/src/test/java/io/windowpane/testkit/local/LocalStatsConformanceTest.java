package io.windowpane.testkit.local;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.StatsConformance;

/** The local engine against the {@link StatsConformance} part of the conformance suite. */
class LocalStatsConformanceTest extends StatsConformance {

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return Windowpane.localBuilder().clock(clock).build();
  }
}
