package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Names and keys that run into one another ("a" with key "b:c", "a:b" with key "c") keep
 * state of their own, for counters, limiters and both kinds of statistics windows: the key
 * names carry the name's length (docs/redis-protocol.md "Keys").
 */
@ExtendWith(RedisServerExtension.class)
class KeyNamesIT {

  private static final Duration MINUTE = Duration.ofMinutes(1);

  private final RedisServer redis;

  KeyNamesIT(RedisServer redis) {
    this.redis = redis;
  }

  @Test
  void limiters_aWithKeyBC_andABWithKeyC_doNotShareState() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 123);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      for (WindowSpec spec : List.of(WindowSpec.panes(MINUTE, 60), WindowSpec.weighted(MINUTE),
          WindowSpec.log(MINUTE))) {
        String tag = spec.algorithm().name().toLowerCase();
        RateLimiter a = wp.limiter(tag + "a", Limit.of(3, spec));
        RateLimiter ab = wp.limiter(tag + "a:b", Limit.of(3, spec));
        assertThat(a.tryAcquire("b:c", 3).allowed()).isTrue();
        assertThat(a.tryAcquire("b:c", 1).allowed()).as("%s: a's own limit", spec).isFalse();
        assertThat(ab.tryAcquire("c", 1).remaining()).as("%s: a:b untouched", spec)
            .isEqualTo(2);
      }
    }
  }

  @Test
  void counters_aWithKeyBC_andABWithKeyC_doNotShareState() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 123);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      for (WindowSpec spec : List.of(WindowSpec.panes(MINUTE, 60), WindowSpec.weighted(MINUTE),
          WindowSpec.log(MINUTE))) {
        String tag = spec.algorithm().name().toLowerCase();
        WindowCounter a = wp.counter(tag + "a", spec);
        WindowCounter ab = wp.counter(tag + "a:b", spec);
        assertThat(a.add("b:c", 5)).isEqualTo(5);
        assertThat(ab.count("c")).as("%s", spec).isZero();
        assertThat(ab.add("c", 2)).isEqualTo(2);
        assertThat(a.count("b:c")).as("%s", spec).isEqualTo(5);
      }
    }
  }

  @Test
  void stats_aWithKeyBC_andABWithKeyC_doNotShareState() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 123);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      for (StatsSpec spec : List.of(StatsSpec.histogram(MINUTE, 12), StatsSpec.exact(MINUTE))) {
        String tag = spec.isExact() ? "x" : "h";
        WindowStats a = wp.stats(tag + "a", spec);
        WindowStats ab = wp.stats(tag + "a:b", spec);
        a.record("b:c", 7.0);
        assertThat(ab.summary("c").count()).as("exact %s", spec.isExact()).isZero();
        ab.record("c", 1.0);
        ab.record("c", 2.0);
        assertThat(a.summary("b:c").count()).isEqualTo(1);
        assertThat(ab.summary("c").count()).isEqualTo(2);
      }
    }
  }
}
