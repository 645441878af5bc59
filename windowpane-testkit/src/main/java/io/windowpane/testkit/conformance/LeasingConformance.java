package io.windowpane.testkit.conformance;

import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.testkit.leasing.LeasingScenarios;

/**
 * The limiter parts of the suite again with hot-key leasing on every limiter
 * ({@link LeasingScenarios#leasing}): {@link LimiterConformance},
 * {@link RandomizedModelConformance} and {@link ConcurrencyConformance}, with the same assertions
 * and no tolerance (docs/leasing.md says why). Only the tests whose limiters leasing changes
 * run: the other parts, the counter tests and the {@code Leases} group build nothing through
 * {@link ConformanceBase#underTest}, so they would repeat the engine's whole suite and are
 * skipped. A configuration extends it as it extends {@link EngineConformance}, with the same
 * sizes to change.
 *
 * <pre>{@code
 * @ExtendWith(RedisServerExtension.class)
 * class MyRedisLeasingConformanceIT extends LeasingConformance {
 *   private final RedisServer redis;
 *   MyRedisLeasingConformanceIT(RedisServer redis) { this.redis = redis; }
 *   @Override protected Windowpane newEngine(ManualClock clock) { ... }
 * }
 * }</pre>
 */
public abstract class LeasingConformance extends EngineConformance {

  @Override
  protected final Quota underTest(Quota quota, ManualClock clock) {
    return LeasingScenarios.leasing(quota, clock);
  }

  @Override
  protected final boolean runs(Class<? extends ConformanceBase> part) {
    return part == LimiterConformance.class || part == RandomizedModelConformance.class
        || part == ConcurrencyConformance.class;
  }

  @Override
  protected final boolean checksCounters() {
    return false;
  }
}
