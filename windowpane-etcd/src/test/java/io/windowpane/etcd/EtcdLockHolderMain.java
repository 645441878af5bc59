package io.windowpane.etcd;

import io.windowpane.Windowpane;
import io.windowpane.testkit.lock.LockScenarios;

/**
 * A lock holder in a JVM of its own, for {@link EtcdLocksIT}: takes the lock with the watchdog
 * on, prints {@code HELD <fencing token>} and blocks until killed.
 *
 * <p>Arguments: the etcd endpoint, the lock name, the ttl in ms.
 */
public final class EtcdLockHolderMain {

  private EtcdLockHolderMain() {}

  public static void main(String[] args) throws Exception {
    LockScenarios.holdUntilKilled(Windowpane.using(EtcdEngine.builder().endpoints(args[0]).build()),
        args[1], Long.parseLong(args[2]));
  }
}
