package io.windowpane.redis;

import io.windowpane.Windowpane;
import io.windowpane.testkit.lock.LockScenarios;

/**
 * A lock holder in a JVM of its own, for {@link RedisLocksIT}: takes the lock with the watchdog
 * on, prints {@code HELD <fencing token>} and blocks until killed.
 *
 * <p>Arguments: the Redis URI, the lock name, the ttl in ms.
 */
public final class LockHolderMain {

  private LockHolderMain() {}

  public static void main(String[] args) throws Exception {
    LockScenarios.holdUntilKilled(Windowpane.using(RedisEngine.builder().uri(args[0]).build()),
        args[1], Long.parseLong(args[2]));
  }
}
