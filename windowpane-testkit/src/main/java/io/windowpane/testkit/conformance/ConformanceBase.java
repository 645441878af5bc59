package io.windowpane.testkit.conformance;

import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.Windowpane;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;

/**
 * What every part of the conformance suite needs from an engine: a fresh {@link Windowpane} on
 * that engine whose time is the given manual clock. Engines subclass each part
 * ({@link CounterConformance}, {@link LimiterConformance}, {@link RandomizedModelConformance},
 * {@link ConcurrencyConformance}) with one method.
 *
 * <p>Names returned by {@link #uniqueName} never repeat within a JVM, so engines backed by a
 * shared server need no cleanup between tests.
 */
public abstract class ConformanceBase {

  /** A realistic instant: 2023-11-14T22:13:20Z, on a whole second. */
  public static final long REALISTIC = 1_700_000_000_000L;

  private static final AtomicInteger NAMES = new AtomicInteger();

  private Windowpane open;

  /**
   * A new {@link Windowpane} on the engine under test, reading time from {@code clock}. The suite
   * closes it after each test.
   */
  protected abstract Windowpane newEngine(ManualClock clock);

  /**
   * Start instants the engine supports, awkward ones included. The default covers a realistic
   * instant, one on a pane edge, one before the epoch and one near {@link Long#MAX_VALUE};
   * engines with a narrower range of time (Lua numbers are doubles) override it.
   */
  protected long[] startInstants() {
    return everyStartInstant();
  }

  /** The default {@link #startInstants()}: the whole range of a Java long, awkward ones included. */
  public static long[] everyStartInstant() {
    return new long[] {REALISTIC + 123, REALISTIC, -5_017, Long.MAX_VALUE / 2 + 7,
        Long.MAX_VALUE - 400L * 24 * 3600 * 1000};
  }

  /**
   * The quota a limiter of the suite is built over: {@code quota} itself by default; a run of
   * the suite with hot-key leasing on returns it with leasing on {@code clock} (docs/leasing.md
   * says where leasing may differ from the suite's exact answers).
   */
  protected Quota underTest(Quota quota, ManualClock clock) {
    return quota;
  }

  /**
   * Whether this run checks counters (true by default). A run that differs from the engine's
   * whole suite only in how limiters are built ({@link #underTest}: leasing on) answers false:
   * its counter tests would repeat the whole suite's, and are skipped.
   */
  protected boolean checksCounters() {
    return true;
  }

  /**
   * Whether this run checks limiters (true by default). A run that differs from the engine's
   * whole suite only in how counters are read (etcd's cached counts) answers false: its limiter
   * tests would repeat the whole suite's, and are skipped.
   */
  protected boolean checksLimiters() {
    return true;
  }

  /** Skips a counter test where {@link #checksCounters()} is false. */
  protected final void counterTest() {
    Assumptions.assumeTrue(checksCounters(),
        "this run changes only limiters: the engine's whole suite checks its counters");
  }

  /** Skips a limiter test where {@link #checksLimiters()} is false. */
  protected final void limiterTest() {
    Assumptions.assumeTrue(checksLimiters(),
        "this run changes only counters: the engine's whole suite checks its limiters");
  }

  /** Opens an engine, closed after the test. */
  protected final Windowpane engine(ManualClock clock) {
    if (open != null) {
      open.close();
    }
    open = newEngine(clock);
    return open;
  }

  @AfterEach
  final void closeEngine() {
    if (open != null) {
      open.close();
      open = null;
    }
  }

  /** A counter or limiter name unused so far in this JVM. */
  protected static String uniqueName(String prefix) {
    return prefix + "-" + NAMES.incrementAndGet();
  }
}
