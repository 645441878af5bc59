package io.windowpane.internal.local;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import io.windowpane.spi.Grant;
import java.time.Duration;
import org.jetbrains.kotlinx.lincheck.LinChecker;
import org.jetbrains.kotlinx.lincheck.annotations.Operation;
import org.jetbrains.kotlinx.lincheck.annotations.Param;
import org.jetbrains.kotlinx.lincheck.paramgen.IntGen;
import org.jetbrains.kotlinx.lincheck.strategy.managed.modelchecking.ModelCheckingOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck on {@link LocalLimiterStore#lease}: a lease reads the window's count, then reserves
 * the room it saw with one conditional CAS, recomputing on a lost race; racing tryAcquire and
 * other leases, every history of a one-limit quota at one instant must match a sequential
 * order (a grant linearizes at its reservation, and with room only shrinking the grant is the
 * largest that fits there). A lease that checked and then recorded without the conditional
 * reservation fails this test. Results are the permits (and allowed or not): a Decision's
 * {@code remaining} is read after the reservation, for tryAcquire as for a lease, so it is not
 * part of the linearizable answer. Limit 5: no stripes.
 *
 * <p>Runs in the Lincheck JVM fork; bounded to keep that fork short.
 */
@Param(name = "n", gen = IntGen.class, conf = "1:3")
public class LeaseLincheckTest {

  private static final WindowSpec SPEC = WindowSpec.panes(Duration.ofSeconds(1), 10);
  private static final Quota QUOTA = Quota.of(Limit.of(5, SPEC));

  private final ManualClock clock = ManualClock.at(1_000_000);
  private final LocalLimiterStore store = new LocalLimiterStore(clock, new KeyTable(
      now -> new KeyState(new Window[] {LocalEngine.window(SPEC, 5, now)}, now),
      QUOTA.expiryMillis(), 100, 1_000_000, clock.millis()), QUOTA);

  /** The permits granted, and whether the decision agrees. */
  private static long granted(Grant g) {
    return g.decision().allowed() == g.permits() > 0 ? g.permits() : -1;
  }

  @Operation
  public boolean tryAcquire(@Param(name = "n") int n) {
    return store.tryConsume("k", n);
  }

  @Operation
  public long leaseUpTo(@Param(name = "n") int n) {
    return granted(store.lease("k", 1, n).orElseThrow());
  }

  @Operation
  public long leaseAtLeast(@Param(name = "n") int n) {
    return granted(store.lease("k", n, 3).orElseThrow());
  }

  @Test
  void modelChecking() {
    new LinChecker(LeaseLincheckTest.class, new ModelCheckingOptions()
        .iterations(6)
        .invocationsPerIteration(200)
        .threads(3)
        .actorsPerThread(2)
        .actorsBefore(1)
        .actorsAfter(1)).check();
  }
}
