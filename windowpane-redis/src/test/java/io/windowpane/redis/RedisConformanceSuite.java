package io.windowpane.redis;

import io.windowpane.testkit.conformance.EngineConformance;

/**
 * The conformance suite ({@link EngineConformance}) on a Redis configuration: a subclass per
 * configuration (Functions, EVALSHA, Redis 6, Cluster, a failover chain) supplies the engine.
 * Lua numbers are doubles, so the suite starts at instants within +-2^52 ms.
 */
abstract class RedisConformanceSuite extends EngineConformance {

  @Override
  protected long[] startInstants() {
    return TestEngines.startInstants();
  }

  /**
   * A quarter of the in-process default: 8 threads x 500 operations still pass every limit of
   * the part in each of its 12 phases, so every phase decides at the limit under contention and
   * checks exact totals; ExactTotalsIT adds 8 threads x 25,000 calls on one key.
   */
  @Override
  protected int concurrencyOperationsPerPhase() {
    return 500;
  }
}
