package io.windowpane.redis;

import static io.windowpane.redis.AdaptiveFixture.ADAPTIVE;
import static io.windowpane.redis.AdaptiveFixture.P;
import static io.windowpane.redis.AdaptiveFixture.PLAIN;
import static io.windowpane.redis.AdaptiveFixture.W;
import static io.windowpane.redis.AdaptiveFixture.counterKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Failover;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespErrorException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adaptive counters and limits on a real redis-server under memory pressure made the real way
 * ({@link AdaptiveFixture}): steps with damping, memory per key, clients that declare the window
 * differently, a chain, event time and replays on a coarsened key, Redis 6, bad input. Time is
 * a manual clock's. Statistics windows: {@link AdaptiveStatsIT}; the error against an exact
 * model: {@link AdaptiveErrorIT}.
 */
class AdaptiveWindowsIT {

  @RegisterExtension
  static final AdaptiveFixture FIXTURE = new AdaptiveFixture();

  private final AdaptiveFixture fixture = FIXTURE;
  private final ManualClock clock = FIXTURE.clock;

  private Windowpane windowpane() {
    return fixture.windowpane();
  }

  private void pressure(boolean on) {
    fixture.pressure(on);
  }

  private int factor(String key) {
    return fixture.factor(key);
  }

  private long memory(String key) {
    return fixture.memory(key);
  }

  @Test
  void counterUnderPressure_coarsensOneLevelPerWindow_shrinks_andRefinesOneLevelPerWindow() {
    try (Windowpane wp = windowpane()) {
      WindowCounter counter = wp.counter("c", ADAPTIVE);
      String key = counterKey("c", "k");
      for (int i = 0; i < P; i++) { // one event in each of the 64 panes
        counter.add("k", 1);
        clock.advance(W / P);
      }
      long fine = memory(key);
      assertThat(factor(key)).isEqualTo(1);

      pressure(true);
      long[] expected = {2, 4, 8, 8};
      for (long k : expected) {
        long count = counter.add("k", 1);
        assertThat(factor(key)).isEqualTo(k);
        assertThat(count).as("never more than the events of the window").isLessThanOrEqualTo(P);
        assertThat(memory(key)).as("coarsening frees memory at once").isLessThan(fine);
        clock.advance(W / 2);
        counter.add("k", 1);
        assertThat(factor(key)).as("damped: one step per window length").isEqualTo(k);
        clock.advance(W / 2);
      }

      pressure(false);
      for (long k : new long[] {4, 2, 1, 1}) {
        counter.add("k", 1);
        assertThat(factor(key)).isEqualTo(k);
        clock.advance(W / 2);
        counter.add("k", 1);
        assertThat(factor(key)).as("damped: one step per window length").isEqualTo(k);
        clock.advance(W / 2);
      }
    }
  }

  @Test
  void clientsDeclaringTheWindowDifferently_readTheResolutionFromTheKey() {
    try (Windowpane a = windowpane(); Windowpane b = windowpane(); Windowpane c = windowpane()) {
      WindowCounter adaptive = a.counter("two", ADAPTIVE);
      WindowCounter plain = b.counter("two", PLAIN);
      WindowCounter other = c.counter("two", PLAIN.withAdaptive(32));
      String key = counterKey("two", "k");
      for (int i = 0; i < 10; i++) {
        plain.add("k", 1);
        clock.advance(W / P);
      }
      pressure(true);
      assertThat(adaptive.add("k", 1)).isEqualTo(11);
      assertThat(factor(key)).isEqualTo(2);
      clock.advance(W / 2);
      assertThat(plain.add("k", 2)).as("a plain client writes at the key's resolution")
          .isEqualTo(13).isEqualTo(adaptive.count("k")).isEqualTo(other.count("k"));
      clock.advance(W / 2); // one window length after the step: every event before it has left
      assertThat(plain.add("k", 1)).isEqualTo(3);
      assertThat(factor(key)).as("a plain client never steps the key").isEqualTo(2);
      assertThat(other.add("k", 1)).isEqualTo(4).isEqualTo(plain.count("k"));
      assertThat(factor(key)).as("32 panes is that client's minimum: it does not go to 16")
          .isEqualTo(2);
      assertThat(adaptive.add("k", 1)).isEqualTo(5);
      assertThat(factor(key)).isEqualTo(4);
      assertThat(plain.count("k")).isEqualTo(adaptive.count("k")).isEqualTo(other.count("k"))
          .isEqualTo(5);
    }
  }

  @Test
  void limits_keepTheirPanesUnlessTheyOptIn_andDecideAtTheKeysResolution() {
    try (Windowpane wp = windowpane()) {
      RateLimiter limiter = wp.limiter("l", Limit.of(100, ADAPTIVE), Limit.of(1_000, PLAIN));
      String adaptiveKey = "wp1:r:{l:k:1}:0:p" + W + "/" + P;
      String plainKey = "wp1:r:{l:k:1}:1:p" + W + "/" + P;
      for (int i = 0; i < P; i++) {
        assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
        clock.advance(W / P);
      }
      long fine = memory(adaptiveKey);
      pressure(true);
      // at T0 + W the fine window holds the events 1..63; the coarse one drops event 1, whose
      // pane shares a coarse pane with event 0's, which has left: 62 + 1
      assertThat(limiter.tryAcquire("k", 1).remaining()).isEqualTo(100 - 63);
      assertThat(factor(adaptiveKey)).isEqualTo(2);
      assertThat(factor(plainKey)).as("a limit over a plain window keeps its panes").isEqualTo(1);
      assertThat(memory(adaptiveKey)).isLessThan(fine);
      assertThat(limiter.tryAcquire("k", 100 - 63).allowed()).isTrue();
      assertThat(limiter.tryAcquire("k", 1).allowed()).as("the limit holds at k = 2").isFalse();
      assertThat(limiter.tryAcquire("k", 1).retryAfter().toMillis())
          .as("the oldest coarse pane leaves first: within one coarse pane")
          .isBetween(1L, 2 * W / P);
    }
  }

  @Test
  void aChainWithALocalFallback_acceptsAdaptiveWindows() {
    Failover chain = Failover.chain(fixture.engine(),
        Windowpane.localBuilder().clock(clock).buildEngine()).build();
    try (Windowpane wp = Windowpane.using(chain)) {
      WindowCounter counter = wp.counter("chain", ADAPTIVE);
      RateLimiter limiter = wp.limiter("chainl", Limit.of(3, ADAPTIVE));
      pressure(true);
      assertThat(counter.add("k", 2)).isEqualTo(2);
      assertThat(factor(counterKey("chain", "k"))).isEqualTo(2);
      assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
      assertThat(limiter.tryAcquire("k", 1).allowed()).isFalse();
    }
  }

  @Test
  void eventTimeReplaysAndHolds_onACoarsenedKey_useItsResolution() {
    try (Windowpane wp = windowpane()) {
      WindowCounter counter = wp.counter("ev", ADAPTIVE);
      WindowStats stats = wp.stats("evs", StatsSpec.histogram(Duration.ofMillis(W), P)
          .withAdaptive(8));
      String key = counterKey("ev", "k");
      pressure(true);
      long t = clock.millis();
      assertThat(counter.add("k", 1)).isEqualTo(1);
      stats.record("k", 5.0);
      assertThat(factor(key)).isEqualTo(2);
      clock.advance(10_000);
      // an event 10 s back goes to its own coarse pane; one more than W back is late
      assertThat(counter.add("k", 2, t + 1)).isEqualTo(3);
      assertThatThrownBy(() -> counter.add("k", 1, clock.millis() - W - 1))
          .isInstanceOf(io.windowpane.EventTimeException.class);
      stats.record("k", 7.0, t + 1);
      assertThat(stats.summary("k").count()).isEqualTo(2);
      assertThat(fixture.admin.command("FCALL", "wp_replay", "2", key + ":y:r1", key,
          Long.toString(clock.millis()), Long.toString(t + 2), "r1", "4", "1", "p",
          Long.toString(W), P + ":8")).isEqualTo(4L);
      assertThat(counter.count("k")).isEqualTo(7);
      assertThat(fixture.admin.command("FCALL", "wp_holds", "1", key, Long.toString(clock.millis()),
          "1", "p", Long.toString(W), Integer.toString(P))).isEqualTo(1L);
      // the coarse pane of t leaves at the start of its pane + W: up to one coarse pane early
      long coarse = 2 * W / P;
      clock.set(Math.floorDiv(t, coarse) * coarse + W);
      assertThat(counter.count("k")).isZero();
      assertThat(stats.summary("k").count()).isZero();
      clock.advance(coarse); // the key's expiry: (head + P/k + 1) coarse panes
      assertThat(fixture.admin.command("FCALL", "wp_holds", "1", key, Long.toString(clock.millis()),
          "1", "p", Long.toString(W), Integer.toString(P))).isEqualTo(0L);
    }
  }

  @Test
  void onRedis6ThroughEvalsha_theSameSteps() {
    try (AdaptiveFixture six = new AdaptiveFixture(RedisServer::startRedis6, ScriptMode.EVALSHA)
        .start(); Windowpane wp = six.windowpane()) {
      WindowCounter counter = wp.counter("six", ADAPTIVE);
      for (int i = 0; i < P; i++) {
        counter.add("k", 1);
        six.clock.advance(W / P);
      }
      six.pressure(true);
      assertThat(counter.add("k", 1)).isEqualTo(63);
      assertThat(six.factor(counterKey("six", "k"))).isEqualTo(2);
      assertThat(counter.count("k")).isEqualTo(63);
    }
  }

  @Test
  void badAdaptiveArguments_areRefusedByTheFunctions_changingNothing() {
    String key = counterKey("bad", "k");
    for (String panes : new String[] {"64:3", "64:0", "64:65", "64:x"}) {
      assertThatThrownBy(() -> fixture.admin.command("FCALL", "wp_add", "1", key, "1000~", "1", "p",
          Long.toString(W), panes)).isInstanceOf(RespErrorException.class)
          .hasMessageContaining("WPARGS");
    }
    assertThat(fixture.admin.command("EXISTS", key)).isEqualTo(0L);
    fixture.admin.command("FCALL", "wp_add", "1", key, "1000~", "1", "p", Long.toString(W), "64:8");
    assertThat(factor(key)).isEqualTo(2);
    assertThatThrownBy(() -> fixture.admin.command("FCALL", "wp_count", "1", key, "1000", "p",
        Long.toString(W), "1")).isInstanceOf(RespErrorException.class)
        .hasMessageContaining("WPFORMAT");
  }
}
