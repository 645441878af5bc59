package io.windowpane.testkit.local;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.LimiterConformance;

/**
 * The local engine against the {@link LimiterConformance} part of the conformance suite, its
 * {@code Leases} group included, whose concurrency test runs 3,000 operations per thread here
 * (hot keys get stripes on this engine only under real contention).
 */
class LocalLimiterConformanceTest extends LimiterConformance {

  @Override
  protected int leaseOperationsPerThread() {
    return 3_000;
  }

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return Windowpane.localBuilder().clock(clock).build();
  }
}
