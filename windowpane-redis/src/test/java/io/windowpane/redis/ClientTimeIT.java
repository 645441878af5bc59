package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Client-time mode: a client whose clock is off by a few hundred milliseconds (or seconds)
 * measures the offset to the server's clock and decides on the server's time anyway.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
@ExtendWith(RedisServerExtension.class)
class ClientTimeIT {

  private final RedisServer redis;

  ClientTimeIT(RedisServer redis) {
    this.redis = redis;
  }

  private static long serverMillis(RespClient c) {
    List<?> t = (List<?>) c.command("TIME");
    return Long.parseLong((String) t.get(0)) * 1000 + Long.parseLong((String) t.get(1)) / 1000;
  }

  @ParameterizedTest
  @ValueSource(longs = {-400, 350, 5_000})
  void skewedClientClock_isCorrectedByTheMeasuredOffset(long skewMillis) {
    RedisEngine engine = RedisEngine.builder().uri(redis.uri())
        .clientTime(() -> System.currentTimeMillis() + skewMillis)
        .expiryGrace(Duration.ZERO).build();
    try (Windowpane wp = Windowpane.using(engine); RespClient c = redis.client()) {
      assertThat(engine.measuredSkewMillis()).hasValueSatisfying(
          offset -> assertThat(offset).isBetween(-skewMillis - 50, -skewMillis + 50));
      String name = "skew" + (skewMillis < 0 ? "m" + -skewMillis : skewMillis);
      RateLimiter limiter = wp.limiter(name, Limit.of(3, WindowSpec.log(Duration.ofSeconds(10))));
      long before = serverMillis(c);
      assertThat(limiter.tryConsume("k", 1)).isTrue();
      long after = serverMillis(c);
      // the event's time is the server's: its logical expiry is that time + W + 1 ms
      long expiry = Long.parseLong((String) c.command("HGET",
          "wp1:r:{" + name + ":k:" + name.length() + "}:0:l10000:m", "e"));
      assertThat(expiry - 10_001).isBetween(before - 50, after + 50);
      assertThat(Long.parseLong(String.valueOf(c.command("PTTL",
          "wp1:r:{" + name + ":k:" + name.length() + "}:0:l10000")))).isBetween(9_000L, 10_001L);
    }
  }
}
