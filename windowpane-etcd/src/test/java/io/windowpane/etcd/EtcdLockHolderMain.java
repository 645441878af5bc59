package io.windowpane.etcd;

import io.windowpane.LockLease;
import io.windowpane.LockOptions;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A lock holder in a JVM of its own, for {@link EtcdLocksIT}: takes the lock with the watchdog
 * on, prints {@code HELD <fencing token>} and blocks until killed.
 *
 * <p>Arguments: the etcd endpoint, the lock name, the ttl in ms.
 */
public final class EtcdLockHolderMain {

  private EtcdLockHolderMain() {}

  public static void main(String[] args) throws Exception {
    Windowpane wp = Windowpane.using(EtcdEngine.builder().endpoints(args[0]).build());
    LockLease lease = wp.lock(args[1], LockOptions.defaults()
        .withTtl(Duration.ofMillis(Long.parseLong(args[2])))).tryLock(Duration.ofSeconds(30))
        .orElseThrow(() -> new IllegalStateException("lock not taken within 30 s"));
    System.out.println("HELD " + lease.fencingToken());
    System.out.flush();
    new CountDownLatch(1).await(); // until killed: the watchdog renews meanwhile
  }
}
