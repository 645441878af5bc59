package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two clients on one etcd whose clocks disagree by {@value #SKEW} ms, both stepped together with
 * a "real" time. What correct means under a skew of d: a key's time is the newest time any client
 * applied to it, so nothing is lost or counted twice, and every event stays counted between W and
 * W + d of real time: a limit may only get stricter, by at most d, never looser.
 */
@ExtendWith(EtcdServerExtension.class)
class ClockSkewIT {

  private static final long SKEW = 300;
  private static final Duration SECOND = Duration.ofSeconds(1);

  private final EtcdServer etcd;
  private long real;
  private ManualClock slow;
  private ManualClock fast;
  private Windowpane onSlow;
  private Windowpane onFast;

  ClockSkewIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  @BeforeEach
  void open() {
    real = ConformanceBase.REALISTIC + 5;
    slow = ManualClock.at(real);
    fast = ManualClock.at(real + SKEW);
    onSlow = TestEngines.open(List.of(etcd.endpoint()), slow);
    onFast = TestEngines.open(List.of(etcd.endpoint()), fast);
  }

  @AfterEach
  void close() {
    onSlow.close();
    onFast.close();
  }

  private void at(long realMillis) {
    real = realMillis;
    slow.set(realMillis);
    fast.set(realMillis + SKEW);
  }

  private static String name() {
    return "skew-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void fastClientsEvents_stayCountedBetweenWAndWPlusTheSkewOfRealTime() {
    String name = name();
    RateLimiter bySlow = onSlow.limiter(name, Limit.of(10, WindowSpec.log(SECOND)));
    RateLimiter byFast = onFast.limiter(name, Limit.of(10, WindowSpec.log(SECOND)));
    long t = real;
    assertThat(byFast.tryAcquire("a", 10).allowed()).isTrue(); // key time t + 300
    assertThat(byFast.tryAcquire("b", 10).allowed()).isTrue();
    at(t + 999);
    assertThat(bySlow.tryAcquire("a", 1).allowed()).as("within W of real time").isFalse();
    at(t + 1000);
    assertThat(byFast.tryAcquire("a", 10).allowed()).as("the fast client: exactly W").isTrue();
    Decision d = bySlow.tryAcquire("b", 1);
    assertThat(d.allowed()).as("the slow client: still counted").isFalse();
    assertThat(d.retryAfterMillis()).as("until W + d").isEqualTo(SKEW);
    at(t + 1000 + SKEW - 1);
    assertThat(bySlow.tryAcquire("b", 1).allowed()).isFalse();
    at(t + 1000 + SKEW);
    assertThat(bySlow.tryAcquire("b", 10).allowed()).isTrue();
  }

  @Test
  void slowClientsEvents_actAtTheKeysNewestTime() {
    String name = name();
    RateLimiter bySlow = onSlow.limiter(name, Limit.of(4, WindowSpec.panes(SECOND, 10)));
    RateLimiter byFast = onFast.limiter(name, Limit.of(4, WindowSpec.panes(SECOND, 10)));
    long t = Math.floorDiv(real, 1000) * 1000 + 1000;
    at(t);
    assertThat(byFast.tryAcquire("k", 1).allowed()).isTrue(); // key time t + 300
    assertThat(bySlow.tryAcquire("k", 3).allowed()).isTrue(); // acts at t + 300, not at t
    at(t + 1000); // had the slow client's events been put at t, their pane would have left
    assertThat(bySlow.tryAcquire("k", 1).allowed()).as("stricter, never looser").isFalse();
    assertThat(byFast.tryAcquire("k", 4).allowed())
        .as("the fast clock reads t + 1300: the pane of t + 300 left").isTrue();
  }

  @Test
  void countersUnderSkew_loseAndDoubleNothing() {
    String name = name();
    WindowCounter bySlow = onSlow.counter(name, WindowSpec.log(Duration.ofMinutes(1)));
    WindowCounter byFast = onFast.counter(name, WindowSpec.log(Duration.ofMinutes(1)));
    long total = 0;
    for (int i = 0; i < 200; i++) {
      at(real + 7);
      total += 1 + i % 4;
      long answer = (i % 2 == 0 ? bySlow : byFast).add("k", 1 + i % 4);
      assertThat(answer).as("step %d", i).isEqualTo(total);
    }
    assertThat(bySlow.count("k")).isEqualTo(total);
    assertThat(byFast.count("k")).isEqualTo(total);
  }
}
