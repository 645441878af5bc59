package io.windowpane.testkit.failover;

import io.windowpane.Failover;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConcurrencyConformance;
import io.windowpane.testkit.conformance.CounterConformance;
import io.windowpane.testkit.conformance.LimiterConformance;
import io.windowpane.testkit.conformance.LockConformance;
import io.windowpane.testkit.conformance.RandomizedModelConformance;
import io.windowpane.testkit.conformance.StatsConformance;
import org.junit.jupiter.api.Nested;

/**
 * A healthy failover chain of two local engines against every part of the conformance suite:
 * the chain's routing, stamping and journaling must change no answer. (Chains over real
 * backends run the suite in their modules, e.g. RedisFailoverConformanceIT.)
 */
class LocalFailoverConformanceTest {

  static Windowpane chain(ManualClock clock) {
    return Windowpane.using(Failover.chain(Windowpane.localBuilder().clock(clock).buildEngine(),
        Windowpane.localBuilder().clock(clock).buildEngine()).clock(clock).background(false)
        .build());
  }

  @Nested
  class Counters extends CounterConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return chain(clock);
    }
  }

  @Nested
  class Limiters extends LimiterConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return chain(clock);
    }
  }

  @Nested
  class RandomizedModel extends RandomizedModelConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return chain(clock);
    }
  }

  @Nested
  class Concurrency extends ConcurrencyConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return chain(clock);
    }
  }

  @Nested
  class Stats extends StatsConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return chain(clock);
    }
  }

  @Nested
  class Locks extends LockConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return chain(clock);
    }
  }
}
