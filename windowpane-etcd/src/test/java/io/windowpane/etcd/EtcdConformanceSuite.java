package io.windowpane.etcd;

import io.windowpane.testkit.conformance.EngineConformance;

/**
 * The conformance suite ({@link EngineConformance}) on the etcd engine; a subclass per fixture
 * (one member, three members) supplies the engine.
 *
 * <p>The engine supports the suite's whole range of start instants (times are Java longs end to
 * end). The concurrency part runs 200 operations per thread and phase instead of the in-process
 * default of 2,000 (8 threads x 200, about 2,400 permits asked a phase, reach the limiter test's
 * 5,000 a second by its third phase; every phase checks exact totals), and the leases' concurrent part 40 per thread instead of 300: every batch is
 * a raft commit with an fsync and the engine is built for modest rates; the same 8 threads still
 * meet on one key in each of the 12 phases.
 */
abstract class EtcdConformanceSuite extends EngineConformance {

  @Override
  protected int concurrencyOperationsPerPhase() {
    return 200;
  }

  /** 150 events per window kind: each is a raft commit; the streams still wrap every window. */
  @Override
  protected int eventTimeEvents() {
    return 150;
  }

  /**
   * 50 critical sections per thread (200 elsewhere): each takes and releases an etcd lock (a
   * lease and transactions, each a raft commit), 30-35 s at 200. The 8 threads still queue on
   * one lock for 400 sections, so two holders at once or a lost increment still shows in the
   * exact count.
   */
  @Override
  protected int lockSectionsPerThread() {
    return 50;
  }

  @Override
  protected int leaseOperationsPerThread() {
    return 40; // 8 threads, 3 phases, 3 algorithms: every batch is a raft commit
  }
}
