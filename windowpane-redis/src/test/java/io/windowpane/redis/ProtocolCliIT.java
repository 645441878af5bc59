package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * docs/redis-protocol.md is enough for a non-Java caller: {@code redis-cli} calls the functions
 * with the documented keys and arguments, on the same state as the Java engine, and both agree.
 */
@ExtendWith(RedisServerExtension.class)
class ProtocolCliIT {

  private static final long T = 1_700_000_000_000L;

  private final RedisServer redis;

  ProtocolCliIT(RedisServer redis) {
    this.redis = redis;
  }

  /** Runs redis-cli against the test server; returns its output lines. */
  private List<String> cli(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("redis-cli", "-h", redis.host(), "-p",
        Integer.toString(redis.port())));
    command.addAll(List.of(args));
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IllegalStateException("redis-cli not found on PATH: install it with "
          + "'sudo apt-get install redis-tools' (Debian/Ubuntu)", e);
    }
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("redis-cli finished").isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    return out.isEmpty() ? List.of() : List.of(out.split("\n"));
  }

  @Test
  void acquire_fromRedisCli_andFromJava_shareOneQuota() throws Exception {
    ManualClock clock = ManualClock.at(T);
    Limit perSecond = Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10));
    Limit perHour = Limit.of(1000, WindowSpec.panes(Duration.ofHours(1), 60));
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      RateLimiter api = wp.limiter("api", Quota.of(perSecond, perHour));
      assertThat(api.tryAcquire("user:42", 2)).isEqualTo(Decision.allowed(8));

      String[] acquire = {"FCALL", "wp_acquire", "2", "wp1:r:{api:user:42}:0:p1000/10",
          "wp1:r:{api:user:42}:1:p3600000/60", Long.toString(T), "6", "2",
          "p", "1000", "10", "10", "p", "3600000", "60", "1000"};
      assertThat(cli(acquire)).containsExactly("1", "2", "0", "0");
      assertThat(api.tryAcquire("user:42", 2)).isEqualTo(Decision.allowed(0));
      // denied by limit 1 (10/s); the oldest pane leaves 1000 ms after T
      assertThat(cli(acquire)).containsExactly("0", "0", "1", "1000");
      assertThat(api.tryAcquire("user:42", 1))
          .isEqualTo(Decision.denied(0, perSecond, 1000));

      // the server's clock: the empty time argument
      String[] serverTime = acquire.clone();
      serverTime[5] = "";
      serverTime[3] = "wp1:r:{api:user:7}:0:p1000/10";
      serverTime[4] = "wp1:r:{api:user:7}:1:p3600000/60";
      assertThat(cli(serverTime)).containsExactly("1", "4", "0", "0");
    }
  }

  @Test
  void counters_fromRedisCli_andFromJava_agree() throws Exception {
    ManualClock clock = ManualClock.at(T);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      WindowCounter logins = wp.counter("logins", WindowSpec.log(Duration.ofMinutes(1)));
      assertThat(cli("FCALL", "wp_add", "2", "wp1:c:{logins:alice}:l60000",
          "wp1:c:{logins:alice}:l60000:m", Long.toString(T), "5", "l", "60000", "1"))
          .containsExactly("5");
      assertThat(logins.add("alice", 2)).isEqualTo(7);
      clock.advance(60_000);
      assertThat(cli("FCALL", "wp_count", "2", "wp1:c:{logins:alice}:l60000",
          "wp1:c:{logins:alice}:l60000:m", Long.toString(T + 59_999), "l", "60000", "1"))
          .containsExactly("7");
      assertThat(logins.count("alice")).as("the events at T have left").isZero();
      assertThat(cli("FCALL", "wp_version", "0")).containsExactly("2");
    }
  }

  @Test
  void badArguments_fromRedisCli_getTheDocumentedErrors() throws Exception {
    try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri()).build())) {
      assertThat(wp.engineName()).isEqualTo("redis");
      assertThat(String.join("\n", cli("FCALL", "wp_acquire", "1", "wp1:r:{x:k}:0:p1000/10", "",
          "0", "1", "p", "1000", "10", "5")))
          .startsWith("WPARGS permits must be an integer in [1, 4503599627370496], was 0");
      assertThat(String.join("\n", cli("FCALL", "wp_add", "1", "wp1:c:{x:k}:p1000/7", "", "1",
          "p", "1000", "7"))).startsWith("WPARGS panes must divide the window");
      assertThat(cli("EXISTS", "wp1:r:{x:k}:0:p1000/10", "wp1:c:{x:k}:p1000/7"))
          .as("nothing changed").containsExactly("0");
    }
  }
}
