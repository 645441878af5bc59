package io.windowpane.internal.local;

import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.IntGen;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.jetbrains.kotlinx.lincheck.strategy.stress.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck on releases into the hot pane of {@link PaneWindow}: {@link HotPaneLincheckTest}'s
 * ring, striped, with a release of 1 or 2 permits into pane 2 racing the stripe spends, the
 * slot's decisions, making the pane exact, counts and adds. Pane 2 is the newest pane any
 * operation reaches, so it is never closed: the release is one CAS on an open pane word
 * (leaving it hot when a read of the stripes shows enough, else making it exact first), and every
 * history must match a sequential order. (A release into a closed pane is exact at quiescence,
 * not linearizable with a concurrent count: see LeaseReleaseTest and PaneWindow's design note.)
 *
 * <p>The ring, as in HotPaneLincheckTest: the ring of {@link PaneRingLincheckTest}
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
public class HotPaneReleaseLincheckTest {

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

  @Operation
  public long release(@Param(name = "pane") int pane, @Param(name = "n") int n) {
    return ring.release(time(pane), time(2), n);
  }

  @Test
  void modelChecking() {
    new LinChecker(HotPaneReleaseLincheckTest.class, new ModelCheckingOptions()
        .iterations(12)
        .invocationsPerIteration(400)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(2)).check();
  }

  @Test
  void stress() {
    new LinChecker(HotPaneReleaseLincheckTest.class, new StressOptions()
        .iterations(6)
        .invocationsPerIteration(1_000)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(2)).check();
  }
}
