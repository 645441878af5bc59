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
   * 300 of the in-process default's 2,000: 8 threads x 300 operations (about 3,600 permits
   * asked a phase) pass the limiter test's 5,000 a second by its second phase and the quota
   * test's limits in every phase, so the phases after decide at the limit under contention, and
   * every phase checks exact totals; ExactTotalsIT adds 8 threads x 25,000 calls on one key.
   */
  @Override
  protected int concurrencyOperationsPerPhase() {
    return 300;
  }
}
