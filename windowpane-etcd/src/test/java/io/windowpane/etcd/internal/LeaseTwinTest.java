package io.windowpane.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import io.windowpane.spi.Grant;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A lease is an acquire of as many permits as fit, in memory (one {@link MemorySeam}): two
 * limiter stores of one quota (panes, log and weighted limits) take the same seeded steps, one
 * leasing where the other acquires what the lease granted (or the lease's minimum when it
 * granted nothing), both acquiring alike in between. Every answer must match: the grant's
 * decision is the twin's, a grant below its maximum leaves some limit exactly full (remaining 0:
 * it was the largest that fit), a refused lease is the twin's denial of the minimum and records
 * nothing, and the grant's time is the key's.
 */
class LeaseTwinTest {

  private static final Quota QUOTA = Quota.of(
      Limit.of(20, WindowSpec.panes(Duration.ofSeconds(1), 10)),
      Limit.of(30, WindowSpec.log(Duration.ofSeconds(2))),
      Limit.of(25, WindowSpec.weighted(Duration.ofSeconds(1))));
  private static final String[] KEYS = {"a", "b", "c"};

  @Test
  void lease_grantsWhatAnAcquireOfTheLargestFittingCountWould_orDeniesLikeAnAcquireOfTheMinimum() {
    for (long seed = 1; seed <= 20; seed++) {
      Random r = new Random(seed);
      ManualClock clock = ManualClock.at(1_700_000_000_000L + r.nextInt(1_000));
      Context ctx = new Context(new MemorySeam(), clock, "t", 5_000, 60_000, 64, 2, 200,
          1_500_000, 0);
      try {
        EtcdLimiterStore leasing = new EtcdLimiterStore(ctx, "lease", QUOTA);
        EtcdLimiterStore twin = new EtcdLimiterStore(ctx, "twin", QUOTA);
        int grants = 0;
        int partial = 0;
        int refused = 0;
        for (int step = 0; step < 1_500; step++) {
          clock.advance(r.nextInt(3) == 0 ? r.nextInt(700) : r.nextInt(40));
          String key = KEYS[r.nextInt(KEYS.length)];
          String what = "seed " + seed + " step " + step;
          if (r.nextBoolean()) {
            long permits = 1 + r.nextInt(6);
            assertThat(leasing.tryAcquire(key, permits)).as(what)
                .isEqualTo(twin.tryAcquire(key, permits));
            continue;
          }
          long min = 1 + r.nextInt(8);
          long max = min + r.nextInt((int) (21 - min));
          Grant g = leasing.lease(key, min, max).orElseThrow();
          assertThat(g.atMillis()).as(what).isEqualTo(clock.millis());
          if (g.permits() == 0) {
            refused++;
            Decision denial = twin.tryAcquire(key, min);
            assertThat(denial.allowed()).as(what).isFalse();
            assertThat(g.decision()).as(what).isEqualTo(denial);
            continue;
          }
          grants++;
          assertThat(g.permits()).as(what).isBetween(min, max);
          assertThat(g.decision()).as(what).isEqualTo(twin.tryAcquire(key, g.permits()));
          if (g.permits() < max) {
            partial++;
            assertThat(g.decision().remaining()).as(what + ": the largest that fit").isZero();
          }
        }
        assertThat(grants).as("seed %d exercised every case", seed).isPositive();
        assertThat(partial).as("seed %d", seed).isPositive();
        assertThat(refused).as("seed %d", seed).isPositive();
      } finally {
        ctx.close();
      }
    }
  }
}
