package io.windowpane.redis;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.leasing.LeasingScenarios;

/**
 * A leasing node in a JVM of its own, for {@link RedisLeasingIT}: see
 * {@link LeasingScenarios#nodeMain}. Arguments: the Redis URI, the clock's start (epoch ms), the
 * limiter's name, the mode ({@code hold} or {@code spend}).
 */
public final class LeasingNodeMain {

  private LeasingNodeMain() {}

  public static void main(String[] args) throws Exception {
    ManualClock clock = ManualClock.at(Long.parseLong(args[1]));
    LeasingScenarios.nodeMain(Windowpane.using(RedisEngine.builder().uri(args[0]).clock(clock)
        .expiryGrace(TestEngines.TEST_GRACE).timeout(TestEngines.TEST_TIMEOUT).build()), clock,
        args[2], args[3]);
  }
}
