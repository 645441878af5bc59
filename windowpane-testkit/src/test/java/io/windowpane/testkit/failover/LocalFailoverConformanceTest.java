package io.windowpane.testkit.failover;

import io.windowpane.Failover;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.EngineConformance;

/**
 * A healthy failover chain of two local engines against every part of the conformance suite:
 * the chain's routing, stamping and journaling must change no answer. (Chains over real
 * backends run the suite in their modules, e.g. RedisFailoverConformanceIT.)
 */
class LocalFailoverConformanceTest extends EngineConformance {

  @Override
  protected Windowpane newEngine(ManualClock clock) {
    return Windowpane.using(Failover.chain(Windowpane.localBuilder().clock(clock).buildEngine(),
        Windowpane.localBuilder().clock(clock).buildEngine()).clock(clock).background(false)
        .build());
  }
}
