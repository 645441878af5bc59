package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the stored layouts look like in Redis: physical TTLs within W + r of the last recorded
 * event, denied requests that extend nothing, a pane hash that stays at P fields however many
 * events it saw, a log capped at the limit, and format versions checked on read.
 */
@ExtendWith(RedisServerExtension.class)
class ExpiryAndLayoutIT {

  private static final Duration MINUTE = Duration.ofMinutes(1);

  private final RedisServer redis;

  ExpiryAndLayoutIT(RedisServer redis) {
    this.redis = redis;
  }

  private static long asLong(Object reply) {
    return reply instanceof Long ? (Long) reply : Long.parseLong((String) reply);
  }

  @Test
  void serverTime_everyLayoutExpiresWithinWindowPlusResolution() {
    try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri()).build());
        RespClient c = redis.client()) {
      for (WindowSpec spec : List.of(WindowSpec.panes(MINUTE, 60), WindowSpec.weighted(MINUTE),
          WindowSpec.log(MINUTE))) {
        String name = "ttl-" + spec.algorithm().name().toLowerCase().replace('_', '-');
        wp.counter(name, spec).add("k", 5);
        List<?> keys = (List<?>) c.command("KEYS", "wp1:c:{" + name + ":k}*");
        assertThat(keys).as("%s", spec).hasSize(spec.algorithm().name().equals("SLIDING_LOG") ? 2 : 1);
        for (Object key : keys) {
          long ttl = asLong(c.command("PTTL", (String) key));
          assertThat(ttl).as("%s %s", spec, key).isPositive()
              .isLessThanOrEqualTo(spec.expiryMillis());
        }
      }
    }
  }

  @Test
  void deniedRequests_doNotExtendTheExpiry() {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri()).clock(clock)
        .expiryGrace(Duration.ZERO).build()); RespClient c = redis.client()) {
      for (WindowSpec spec : List.of(WindowSpec.panes(MINUTE, 60), WindowSpec.weighted(MINUTE),
          WindowSpec.log(MINUTE))) {
        String name = "deny-" + spec.algorithm().name().toLowerCase().replace('_', '-');
        RateLimiter limiter = wp.limiter(name, Limit.of(1, spec));
        assertThat(limiter.tryConsume("k", 1)).isTrue();
        String holder = "wp1:r:{" + name + ":k}:0:" + (spec.panes() > 1 ? "p60000/60"
            : spec.algorithm().name().equals("SLIDING_LOG") ? "l60000" : "w60000");
        String meta = spec.algorithm().name().equals("SLIDING_LOG") ? holder + ":m" : holder;
        long expiry = asLong(c.command("HGET", meta, "e"));
        clock.advance(30_000);
        assertThat(limiter.tryConsume("k", 1)).as("%s", spec).isFalse();
        assertThat(asLong(c.command("HGET", meta, "e"))).as("%s", spec).isEqualTo(expiry);
        assertThat(asLong(c.command("PTTL", holder))).as("%s: no PEXPIRE on denial", spec)
            .isLessThanOrEqualTo(expiry - (clock.millis() - 30_000));
        clock.set(clock.millis() - 30_000);
      }
    }
  }

  @Test
  void panes_hashKeepsAtMostPFieldsAndLogAtMostTheLimit() {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri()).clock(clock)
        .expiryGrace(Duration.ofMinutes(10)).build()); RespClient c = redis.client()) {
      WindowCounter panes = wp.counter("bounded", WindowSpec.panes(MINUTE, 60));
      RateLimiter log = wp.limiter("capped", Limit.of(500, WindowSpec.log(MINUTE)));
      String hash = "wp1:c:{bounded:k}:p60000/60";
      String set = "wp1:r:{capped:k}:0:l60000";
      for (int i = 1; i <= 30_000; i++) { // 30,000 events over three minutes
        panes.add("k");
        log.tryConsume("k", 1);
        clock.advance(6);
        if (i % 1000 == 0) {
          assertThat(asLong(c.command("HLEN", hash))).as("after %d events", i)
              .isLessThanOrEqualTo(60 + 4); // v, e, h, c and at most P panes
          assertThat(asLong(c.command("ZCARD", set))).isLessThanOrEqualTo(500);
        }
      }
      assertThat(panes.count("k")).isBetween(59L * 10_000 / 60, 10_000L);
    }
  }

  @Test
  void aKeyInAnotherFormat_isAnErrorNotAWrongAnswer() {
    try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri()).build());
        RespClient c = redis.client()) {
      c.command("HSET", "wp1:c:{fmt:k}:p1000/10", "v", "9", "c", "5");
      WindowCounter counter = wp.counter("fmt", WindowSpec.panes(Duration.ofSeconds(1), 10));
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> counter.add("k"))
          .isInstanceOf(io.windowpane.WindowpaneException.class)
          .hasMessageContaining("WPFORMAT");
      assertThat(c.command("HGET", "wp1:c:{fmt:k}:p1000/10", "c")).isEqualTo("5");
    }
  }
}
