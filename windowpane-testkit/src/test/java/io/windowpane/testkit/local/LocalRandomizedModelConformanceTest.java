package io.windowpane.testkit.local;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.RandomizedModelConformance;

/** The local engine against the {@link RandomizedModelConformance} part of the conformance suite. */
class LocalRandomizedModelConformanceTest extends RandomizedModelConformance {

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return Windowpane.localBuilder().clock(clock).build();
  }
}
