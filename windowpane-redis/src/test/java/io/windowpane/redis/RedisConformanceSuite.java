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
}
