package io.windowpane.testkit.local;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.EngineConformance;

/** The local engine, the reference semantics, against every part of the conformance suite. */
class LocalConformanceTest extends EngineConformance {

  /** In-process leases are cheap: ten times the suite's default, for more interleavings. */
  @Override
  protected int leaseOperationsPerThread() {
    return 3_000;
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return Windowpane.localBuilder().clock(clock).build();
  }
}
