package io.windowpane.internal.local;

import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.IntGen;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.jetbrains.kotlinx.lincheck.strategy.stress.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck on the hot-pane path of {@link PaneWindow}: the ring of {@link PaneRingLincheckTest}
 * (3 panes of 10 ms, operation times within one window), but striped from the start with 2
 * stripes of 1 permit and a limit of 6, so a pane opens hot while its older panes hold at most
 * 2 (6 - 2 x allotment 2), and exact otherwise. Threads then race a stripe spend (one permit),
 * the slot's conservative decision (two permits never fit a stripe), making a pane exact before
 * a denial (sealing the stripes, taking back their unspent permits), closing a hot pane when the
 * head moves on, a count's snapshot of slot and stripes, and an add (which makes a hot pane
 * exact). Every history must match a sequential order of the same operations on a fresh ring,
 * whose answers never show the allotment.
 *
 * <p>Runs in the Lincheck JVM fork with PaneRingLincheckTest; bounded to keep that fork short.
 */
@Param(name = "pane", gen = IntGen.class, conf = "0:2")
@Param(name = "n", gen = IntGen.class, conf = "1:2")
public class HotPaneLincheckTest {

  private static final long PANE_MILLIS = 10;
  private static final long START = 1_000; // pane 100
  private static final long LIMIT = 6;

  private final PaneWindow ring = PaneWindow.striped(PANE_MILLIS, 3, false, 2, 1, START);

  private static long time(int pane) {
    return START + pane * PANE_MILLIS + 3;
  }

  @Operation
  public long add(@Param(name = "pane") int pane, @Param(name = "n") int n) {
    return ring.add(time(pane), n);
  }

  @Operation
  public long count(@Param(name = "pane") int pane) {
    return ring.count(time(pane));
  }

  @Operation
  public boolean tryAcquire(@Param(name = "pane") int pane, @Param(name = "n") int n) {
    return ring.reserve(time(pane), n, LIMIT) != Window.DENIED;
  }

  @Operation
  public boolean tryAcquireOne(@Param(name = "pane") int pane) {
    return ring.reserve(time(pane), 1, LIMIT) != Window.DENIED;
  }

  /**
   * 10 x 500 invocations (was 20 x 500, 42 s). At this size it still fails on a ring that reads
   * the older panes' sum without closing them and on one whose hot pane denies on its
   * conservative count instead of making the pane exact first (both checked by hand).
   */
  @Test
  void modelChecking() {
    new LinChecker(HotPaneLincheckTest.class, new ModelCheckingOptions()
        .iterations(10)
        .invocationsPerIteration(500)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(2)).check();
  }

  @Test
  void stress() {
    new LinChecker(HotPaneLincheckTest.class, new StressOptions()
        .iterations(10)
        .invocationsPerIteration(1_000)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(2)).check();
  }
}
