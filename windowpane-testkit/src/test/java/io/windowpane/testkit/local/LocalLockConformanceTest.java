package io.windowpane.testkit.local;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.LockConformance;

/** The local engine against the {@link LockConformance} part of the conformance suite. */
class LocalLockConformanceTest extends LockConformance {

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return Windowpane.localBuilder().clock(clock).build();
  }
}
