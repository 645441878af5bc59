package io.windowpane.etcd;

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
 * Every part of the conformance suite, one {@code @Nested} class each, on the etcd engine that
 * {@link #open} returns; a subclass per fixture (one member, three members) says how to open it.
 *
 * <p>The engine supports the suite's whole range of start instants (times are Java longs end to
 * end). The concurrency part runs 300 operations per thread and phase instead of the in-process
 * default of 2,000: every batch is a raft commit with an fsync and the engine is built for
 * modest rates; the same 8 threads still meet on one key in each of the 12 phases.
 */
abstract class EtcdConformanceSuite {

  /** An engine on the fixture under test, whose calls carry {@code clock}'s time. */
  protected abstract Windowpane open(ManualClock clock);

  @Nested
  class Counters extends CounterConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class Limiters extends LimiterConformance {
    @Override
    protected int leaseOperationsPerThread() {
      return 40; // 8 threads, 3 phases, 3 algorithms: every batch is a raft commit
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class RandomizedModel extends RandomizedModelConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class Concurrency extends ConcurrencyConformance {
    @Override
    protected int operationsPerPhase() {
      return 300;
    }

    @Override
    protected int phases() {
      return 12;
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class Stats extends StatsConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }

  @Nested
  class Locks extends LockConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return open(clock);
    }
  }
}
