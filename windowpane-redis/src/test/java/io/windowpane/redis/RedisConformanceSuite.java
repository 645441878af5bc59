package io.windowpane.redis;

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
 * Every part of the conformance suite, one {@code @Nested} class each, on the Redis engine that
 * {@link #open} returns; a subclass per configuration (Functions, EVALSHA, Cluster) says how to
 * open it on its fixture.
 */
abstract class RedisConformanceSuite {

  /** An engine on the configuration under test, whose calls carry {@code clock}'s time. */
  protected abstract Windowpane open(ManualClock clock);

  @Nested
  class Counters extends CounterConformance {
    @Override
    protected long[] startInstants() {
      return TestEngines.startInstants();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class Limiters extends LimiterConformance {
    @Override
    protected long[] startInstants() {
      return TestEngines.startInstants();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class RandomizedModel extends RandomizedModelConformance {
    @Override
    protected long[] startInstants() {
      return TestEngines.startInstants();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  /** Operations per thread per phase of the concurrency part; slower configurations lower it. */
  protected int concurrencyOperationsPerPhase() {
    return 2_000;
  }

  @Nested
  class Concurrency extends ConcurrencyConformance {
    @Override
    protected int operationsPerPhase() {
      return concurrencyOperationsPerPhase();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class Stats extends StatsConformance {
    @Override
    protected long[] startInstants() {
      return TestEngines.startInstants();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class Locks extends LockConformance {
    @Override
    protected long[] startInstants() {
      return TestEngines.startInstants();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }
}
