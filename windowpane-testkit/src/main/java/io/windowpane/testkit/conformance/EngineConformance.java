package io.windowpane.testkit.conformance;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import org.junit.jupiter.api.Nested;

/**
 * The whole conformance suite for one engine configuration: every part, one {@code @Nested} class
 * each ({@link CounterConformance}, {@link LimiterConformance} with its leases,
 * {@link RandomizedModelConformance}, {@link ConcurrencyConformance}, {@link StatsConformance},
 * {@link EventTimeConformance}, {@link LockConformance}). A configuration extends it and
 * supplies its engine factory; the
 * other methods are the few sizes an engine may change, with the suite's defaults.
 *
 * <pre>{@code
 * @ExtendWith(RedisServerExtension.class)
 * class MyRedisConformanceIT extends EngineConformance {
 *   private final RedisServer redis;
 *   MyRedisConformanceIT(RedisServer redis) { this.redis = redis; }
 *   @Override protected Windowpane newEngine(ManualClock clock) { ... }
 * }
 * }</pre>
 *
 * <p>A server fixture registered on the subclass (one server per class) serves every part. A
 * configuration may add parts of its own as further {@code @Nested} classes.
 */
public abstract class EngineConformance {

  /**
   * A new {@link Windowpane} on the configuration under test, reading time from {@code clock};
   * each part closes it after each test.
   */
  protected abstract Windowpane newEngine(ManualClock clock);

  /** The start instants the engine supports ({@link ConformanceBase#startInstants()}). */
  protected long[] startInstants() {
    return ConformanceBase.everyStartInstant();
  }

  /** Operations per thread per phase of the concurrency part. */
  protected int concurrencyOperationsPerPhase() {
    return 2_000;
  }

  /** Seeds of the randomized part, from 1 ({@link RandomizedModelConformance#seeds()}). */
  protected int randomizedModelSeeds() {
    return 12;
  }

  /** Events per window kind of the event-time part ({@link EventTimeConformance#events()}). */
  protected int eventTimeEvents() {
    return 300;
  }

  /** Operations per thread of the concurrent part of the leases ({@link LeaseConformance}). */
  protected int leaseOperationsPerThread() {
    return 300;
  }

  @Nested
  public class Counters extends CounterConformance {
    @Override
    protected long[] startInstants() {
      return EngineConformance.this.startInstants();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return EngineConformance.this.newEngine(clock);
    }
  }

  @Nested
  public class Limiters extends LimiterConformance {
    @Override
    protected long[] startInstants() {
      return EngineConformance.this.startInstants();
    }

    @Override
    protected int leaseOperationsPerThread() {
      return EngineConformance.this.leaseOperationsPerThread();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return EngineConformance.this.newEngine(clock);
    }
  }

  @Nested
  public class RandomizedModel extends RandomizedModelConformance {
    @Override
    protected long[] startInstants() {
      return EngineConformance.this.startInstants();
    }

    @Override
    protected int seeds() {
      return randomizedModelSeeds();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return EngineConformance.this.newEngine(clock);
    }
  }

  @Nested
  public class Concurrency extends ConcurrencyConformance {
    @Override
    protected int operationsPerPhase() {
      return concurrencyOperationsPerPhase();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return EngineConformance.this.newEngine(clock);
    }
  }

  @Nested
  public class Stats extends StatsConformance {
    @Override
    protected long[] startInstants() {
      return EngineConformance.this.startInstants();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return EngineConformance.this.newEngine(clock);
    }
  }

  @Nested
  public class EventTimes extends EventTimeConformance {
    @Override
    protected long[] startInstants() {
      return EngineConformance.this.startInstants();
    }

    @Override
    protected int events() {
      return eventTimeEvents();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return EngineConformance.this.newEngine(clock);
    }
  }

  @Nested
  public class Locks extends LockConformance {
    @Override
    protected long[] startInstants() {
      return EngineConformance.this.startInstants();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return EngineConformance.this.newEngine(clock);
    }
  }
}
