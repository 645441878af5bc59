package io.windowpane.redis;

import static io.windowpane.redis.AdaptiveFixture.ADAPTIVE;
import static io.windowpane.redis.AdaptiveFixture.P;
import static io.windowpane.redis.AdaptiveFixture.W;
import static io.windowpane.redis.AdaptiveFixture.counterKey;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.WindowCounter;
import io.windowpane.Windowpane;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The stated error of adaptive windows, measured against an exact model on a real server. */
class AdaptiveErrorIT {

  @RegisterExtension
  static final AdaptiveFixture FIXTURE = new AdaptiveFixture();

  private final AdaptiveFixture fixture = FIXTURE;
  private final ManualClock clock = FIXTURE.clock;

  /**
   * A seeded random walk of adds under pressure switched on and off, checked after every call
   * against an exact model: the count lies between the events of (t - W + K r, t] and those of
   * (t - W, t], K the largest factor the key had since t - W. The same run, checked against half
   * that error, must fail somewhere: the bound is needed, and the check can fail.
   */
  @Test
  void randomAdds_stayWithinTheStatedErrorAtEveryLevel() {
    Random random = new Random(20261127);
    try (Windowpane wp = fixture.windowpane()) {
      WindowCounter counter = wp.counter("m", ADAPTIVE);
      String key = counterKey("m", "k");
      List<long[]> events = new ArrayList<>(); // {time, n}
      List<long[]> factors = new ArrayList<>(); // {time, factor from then on}
      factors.add(new long[] {Long.MIN_VALUE, 1});
      boolean on = false;
      int checked = 0;
      int tighterFails = 0;
      int[] seen = new int[9];
      for (int step = 0; step < 1_200; step++) {
        if (step % 300 == 150) {
          on = !on;
          fixture.pressure(on);
        }
        clock.advance(random.nextInt(1_400));
        long t = clock.millis();
        long n = 1 + random.nextInt(3);
        long count = counter.add("k", n);
        events.add(new long[] {t, n});
        int k = fixture.factor(key);
        factors.add(new long[] {t, k});
        seen[k]++;
        long most = 1;
        for (int i = factors.size() - 1; i >= 0; i--) {
          most = Math.max(most, factors.get(i)[1]);
          if (factors.get(i)[0] <= t - W) {
            break;
          }
        }
        long r = W / P;
        assertThat(count).as("step %d at factor %d", step, k)
            .isBetween(exact(events, t - W + most * r, t), exact(events, t - W, t));
        if (count < exact(events, t - W + most * r / 2, t)) {
          tighterFails++;
        }
        checked++;
      }
      assertThat(checked).isEqualTo(1_200);
      assertThat(seen[1]).isPositive();
      assertThat(seen[2]).isPositive();
      assertThat(seen[4]).isPositive();
      assertThat(seen[8]).as("every level visited: %s", Arrays.toString(seen))
          .isPositive();
      assertThat(tighterFails).as("half the stated error is broken somewhere").isPositive();
    }
  }

  private static long exact(List<long[]> events, long after, long upTo) {
    long sum = 0;
    for (long[] e : events) {
      if (e[0] > after && e[0] <= upTo) {
        sum += e[1];
      }
    }
    return sum;
  }

}
