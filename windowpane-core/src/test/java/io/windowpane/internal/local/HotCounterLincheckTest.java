package io.windowpane.internal.local;

import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.IntGen;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck on a counter's hot path in {@link PaneWindow}: the ring of {@link PaneRingLincheckTest}
 * (3 panes of 10 ms, operation times within one window), striped from the start with 2 stripes
 * of 2 events, so a record opens a pane hot, spends its thread's stripe, finds it full and goes
 * back to the pane word after making the pane exact; an add makes a hot pane exact and returns
 * the count; a count reads the snapshot of slot and stripes; and moving on closes a hot pane.
 * Every history must match a sequential order of the same operations on a fresh ring.
 *
 * <p>Runs in the Lincheck JVM fork; model checking only, bounded to keep that fork short.
 */
@Param(name = "pane", gen = IntGen.class, conf = "0:2")
@Param(name = "n", gen = IntGen.class, conf = "1:2")
public class HotCounterLincheckTest {

  private static final long PANE_MILLIS = 10;
  private static final long START = 1_000; // pane 100

  private final PaneWindow ring = PaneWindow.stripedCounter(PANE_MILLIS, 3, false, 2, 2, START);

  private static long time(int pane) {
    return START + pane * PANE_MILLIS + 3;
  }

  @Operation
  public void record(@Param(name = "pane") int pane, @Param(name = "n") int n) {
    ring.record(time(pane), n);
  }

  @Operation
  public void recordOne(@Param(name = "pane") int pane) {
    ring.record(time(pane), 1);
  }

  @Operation
  public long add(@Param(name = "pane") int pane, @Param(name = "n") int n) {
    return ring.add(time(pane), n);
  }

  @Operation
  public long count(@Param(name = "pane") int pane) {
    return ring.count(time(pane));
  }

  @Test
  void modelChecking() {
    new LinChecker(HotCounterLincheckTest.class, new ModelCheckingOptions()
        .iterations(5)
        .invocationsPerIteration(200)
        .threads(3)
        .actorsPerThread(2)
        .actorsBefore(2)
        .actorsAfter(2)).check();
  }
}
