package io.windowpane.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Drives the engine and the {@link ReferenceModel} with the same seeded random operations and
 * clock steps, and compares every answer: counts, and whole decisions (allowed, remaining,
 * deniedBy, retryAfter). A failure names the seed and the step, so it can be replayed.
 */
public abstract class RandomizedModelConformance extends ConformanceBase {

  /** Seeds run by default; each is an independent scenario. */
  protected int seeds() {
    return 12;
  }

  /** Operations per seed. */
  protected int steps() {
    return 1500;
  }

  private static final String[] KEYS = {"a", "b", "c"};

  private static WindowSpec randomSpec(Random random) {
    int panes = new int[] {1, 2, 3, 4, 5, 8, 10}[random.nextInt(7)];
    long window = panes * (1 + random.nextInt(150)) * (random.nextBoolean() ? 1 : 7);
    switch (random.nextInt(3)) {
      case 0:
        return WindowSpec.log(Duration.ofMillis(window));
      case 1:
        return WindowSpec.weighted(Duration.ofMillis(window));
      default:
        return WindowSpec.panes(Duration.ofMillis(window), panes);
    }
  }

  private static long step(Random random, long longestWindow) {
    int kind = random.nextInt(10);
    if (kind < 3) {
      return 0;
    }
    if (kind < 9) {
      return random.nextInt((int) Math.max(1, longestWindow / 4));
    }
    return longestWindow + random.nextInt((int) longestWindow * 2 + 1);
  }

  @Test
  void counters_matchTheReferenceModel() {
    counterTest();
    for (int seed = 1; seed <= seeds(); seed++) {
      Random random = new Random(seed);
      long[] starts = startInstants();
      ManualClock clock = ManualClock.at(starts[seed % starts.length]);
      Windowpane wp = engine(clock);
      WindowSpec spec = randomSpec(random);
      WindowCounter counter = wp.counter(uniqueName("model"), spec);
      ReferenceModel model = new ReferenceModel();
      for (int i = 0; i < steps(); i++) {
        clock.advance(step(random, spec.windowMillis()));
        String key = KEYS[random.nextInt(KEYS.length)];
        long t = clock.millis();
        String where = "seed " + seed + " step " + i + " " + spec + " at " + t;
        if (random.nextBoolean()) {
          long n = 1 + random.nextInt(random.nextBoolean() ? 3 : 1000);
          model.record(key, t, n);
          assertThat(counter.add(key, n)).as(where).isEqualTo(model.count(key, spec, t));
        } else {
          assertThat(counter.count(key)).as(where).isEqualTo(model.count(key, spec, t));
        }
      }
    }
  }

  @Test
  void limiters_matchTheReferenceModel() {
    limiterTest();
    for (int seed = 1; seed <= seeds(); seed++) {
      Random random = new Random(1000 + seed);
      long[] starts = startInstants();
      ManualClock clock = ManualClock.at(starts[seed % starts.length]);
      Windowpane wp = engine(clock);
      List<Limit> limits = new ArrayList<>();
      int howMany = 1 + random.nextInt(3);
      long longest = 1;
      for (int l = 0; l < howMany; l++) {
        WindowSpec spec = randomSpec(random);
        limits.add(Limit.of(1 + random.nextInt(l == 0 ? 8 : 40), spec).named("l" + l));
        longest = Math.max(longest, spec.windowMillis());
      }
      Quota quota = Quota.of(limits);
      RateLimiter limiter = wp.limiter(uniqueName("model"), underTest(quota, clock));
      ReferenceModel model = new ReferenceModel();
      for (int i = 0; i < steps(); i++) {
        clock.advance(step(random, longest));
        String key = KEYS[random.nextInt(KEYS.length)];
        long t = clock.millis();
        long permits = 1 + random.nextInt((int) quota.smallestPermits());
        Decision expected = model.tryAcquire(key, quota, t, permits);
        Decision actual = limiter.tryAcquire(key, permits);
        assertThat(actual).as("seed %d step %d %s at %d: %d permits of %s", seed, i, quota, t,
            permits, key).isEqualTo(expected);
      }
    }
  }
}
