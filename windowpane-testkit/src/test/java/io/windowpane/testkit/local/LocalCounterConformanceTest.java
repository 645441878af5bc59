package io.windowpane.testkit.local;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.CounterConformance;

/** The local engine against the {@link CounterConformance} part of the conformance suite. */
class LocalCounterConformanceTest extends CounterConformance {

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return Windowpane.localBuilder().clock(clock).build();
  }
}
