package io.windowpane.testkit.conformance;

import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.Windowpane;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInfo;

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

  /**
   * Critical sections per thread of the locks' mutual-exclusion test
   * ({@link LockConformance#sectionsPerThread()}).
   */
  protected int lockSectionsPerThread() {
    return 200;
  }

  /** Operations per thread of the concurrent part of the leases ({@link LeaseConformance}). */
  protected int leaseOperationsPerThread() {
    return 300;
  }

  /**
   * The quota a limiter of the limiter, randomized and concurrency parts is built over
   * ({@link ConformanceBase#underTest}): {@code quota} itself by default.
   */
  protected Quota underTest(Quota quota, ManualClock clock) {
    return quota;
  }

  /**
   * Whether the randomized and concurrency parts run their counter tests
   * ({@link ConformanceBase#checksCounters}): true by default.
   */
  protected boolean checksCounters() {
    return true;
  }

  /**
   * Whether {@code part} runs: one of {@link CounterConformance}, {@link LimiterConformance},
   * {@link LeaseConformance} (the leases nested in the limiters),
   * {@link RandomizedModelConformance}, {@link ConcurrencyConformance}, {@link StatsConformance}
   * and {@link LockConformance}. Every part by default; a configuration that can change the
   * answers of only some parts (the same engine on three members instead of one) runs those,
   * and the others are skipped.
   */
  protected boolean runs(Class<? extends ConformanceBase> part) {
    return true;
  }

  private static final List<Class<? extends ConformanceBase>> PARTS = List.of(
      CounterConformance.class, LimiterConformance.class, LeaseConformance.class,
      RandomizedModelConformance.class, ConcurrencyConformance.class, StatsConformance.class,
      LockConformance.class, EventTimeConformance.class);

  @BeforeEach
  final void skipPartsThisConfigurationLeavesOut(TestInfo test) {
    Class<?> testClass = test.getTestClass().orElseThrow();
    for (Class<? extends ConformanceBase> part : PARTS) {
      if (part.isAssignableFrom(testClass)) {
        Assumptions.assumeTrue(runs(part), () -> part.getSimpleName()
            + " is left out of this configuration: the engine's whole suite runs it");
      }
    }
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
    protected Quota underTest(Quota quota, ManualClock clock) {
      return EngineConformance.this.underTest(quota, clock);
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
    protected Quota underTest(Quota quota, ManualClock clock) {
      return EngineConformance.this.underTest(quota, clock);
    }

    @Override
    protected boolean checksCounters() {
      return EngineConformance.this.checksCounters();
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
    protected Quota underTest(Quota quota, ManualClock clock) {
      return EngineConformance.this.underTest(quota, clock);
    }

    @Override
    protected boolean checksCounters() {
      return EngineConformance.this.checksCounters();
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
    protected int sectionsPerThread() {
      return lockSectionsPerThread();
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return EngineConformance.this.newEngine(clock);
    }
  }
}
