package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.conformance.ReferenceModel;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two processes (engines, each with its own per-key caches) take turns at random on the same
 * keys, and every answer must equal the reference model's: a cache made stale by the other
 * process must never show in an answer (it is proven current by the compare of the
 * transaction, or refreshed by the compare's failure).
 */
@ExtendWith(EtcdServerExtension.class)
class TwoProcessesModelIT {

  private static final String[] KEYS = {"a", "b"};

  private final EtcdServer etcd;

  TwoProcessesModelIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  @Test
  void randomTurnsOnSharedKeys_answerExactlyAsTheModel() {
    Random random = new Random(20261122);
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 17);
    String name = "two-" + UUID.randomUUID().toString().substring(0, 8);
    Quota quota = Quota.of(Limit.of(7, WindowSpec.log(Duration.ofMillis(700))).named("log"),
        Limit.of(12, WindowSpec.panes(Duration.ofSeconds(2), 4)).named("panes"),
        Limit.of(20, WindowSpec.weighted(Duration.ofSeconds(3))).named("weighted"));
    WindowSpec counterSpec = WindowSpec.panes(Duration.ofSeconds(1), 5);
    try (Windowpane one = TestEngines.open(List.of(etcd.endpoint()), clock);
        Windowpane two = TestEngines.open(List.of(etcd.endpoint()), clock)) {
      RateLimiter[] limiters = {one.limiter(name, quota), two.limiter(name, quota)};
      WindowCounter[] counters = {one.counter(name, counterSpec), two.counter(name, counterSpec)};
      ReferenceModel model = new ReferenceModel();
      for (int step = 0; step < 1_500; step++) {
        clock.advance(random.nextInt(4) == 0 ? 0 : random.nextInt(250));
        int who = random.nextInt(2);
        String key = KEYS[random.nextInt(KEYS.length)];
        long t = clock.millis();
        String where = "step " + step + " by process " + who + " on " + key + " at " + t;
        switch (random.nextInt(3)) {
          case 0: {
            long permits = 1 + random.nextInt(3);
            Decision expected = model.tryAcquire(key, quota, t, permits);
            assertThat(limiters[who].tryAcquire(key, permits)).as(where).isEqualTo(expected);
            break;
          }
          case 1: {
            long n = 1 + random.nextInt(5);
            model.record("c|" + key, t, n);
            assertThat(counters[who].add(key, n)).as(where)
                .isEqualTo(model.count("c|" + key, counterSpec, t));
            break;
          }
          default:
            assertThat(counters[who].count(key)).as(where)
                .isEqualTo(model.count("c|" + key, counterSpec, t));
        }
      }
    }
  }
}
