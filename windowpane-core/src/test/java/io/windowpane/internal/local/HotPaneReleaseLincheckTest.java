package io.windowpane.internal.local;

import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.IntGen;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.jetbrains.kotlinx.lincheck.strategy.stress.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck on releases into a hot pane of {@link PaneWindow}: the striped ring of
 * {@link HotPaneLincheckTest} (2 stripes of 1 permit, limit 6, so the pane opens hot), every
 * operation at one pane, where a release of 1 or 2 permits races stripe spends, the slot's
 * decisions, making the pane exact before a denial or a too-large release, counts' snapshots
 * and adds. Every history must match a sequential order of the same operations.
 *
 * <p>One pane, because placement across panes is not linearizable and a release is the one
 * operation that can see it: an operation whose time lags behind head acts at the head pane, so
 * which pane a request's permits land in depends on whether a concurrent operation moved head
 * first (Lincheck found exactly that history when operations spanned three panes). Releases
 * into closed panes are checked at quiescence by LeaseReleaseTest.
 *
 * <p>Runs in the Lincheck JVM fork with PaneRingLincheckTest; bounded to keep that fork short.
 */
@Param(name = "at", gen = IntGen.class, conf = "0:4")
@Param(name = "n", gen = IntGen.class, conf = "1:2")
public class HotPaneReleaseLincheckTest {

  private static final long PANE_MILLIS = 10;
  private static final long START = 1_000; // pane 100
  private static final long LIMIT = 6;

  private final PaneWindow ring = PaneWindow.striped(PANE_MILLIS, 3, false, 2, 1, START);

  /** Pane 102, 3 to 7 ms in: every operation acts at the same pane. */
  private static long time(int offset) {
    return START + 2 * PANE_MILLIS + 3 + offset;
  }

  @Operation
  public long add(@Param(name = "at") int at, @Param(name = "n") int n) {
    return ring.add(time(at), n);
  }

  @Operation
  public long count(@Param(name = "at") int at) {
    return ring.count(time(at));
  }

  @Operation
  public boolean tryAcquire(@Param(name = "at") int at, @Param(name = "n") int n) {
    return ring.reserve(time(at), n, LIMIT) != Window.DENIED;
  }

  @Operation
  public boolean tryAcquireOne(@Param(name = "at") int at) {
    return ring.reserve(time(at), 1, LIMIT) != Window.DENIED;
  }

  @Operation
  public long release(@Param(name = "at") int at, @Param(name = "n") int n) {
    return ring.release(time(at), time(0), n);
  }

  @Test
  void modelChecking() {
    new LinChecker(HotPaneReleaseLincheckTest.class, new ModelCheckingOptions()
        .iterations(8)
        .invocationsPerIteration(300)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(2)).check();
  }

  @Test
  void stress() {
    new LinChecker(HotPaneReleaseLincheckTest.class, new StressOptions()
        .iterations(4)
        .invocationsPerIteration(500)
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(2)
        .actorsAfter(2)).check();
  }
}
