package io.windowpane.etcd;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.testkit.leasing.LeasingScenarios;

/**
 * A leasing node in a JVM of its own, for {@link EtcdLeasingIT}: see
 * {@link LeasingScenarios#nodeMain}. Arguments: the etcd endpoint, the clock's start (epoch ms), the
 * limiter's name, the mode ({@code hold} or {@code spend}).
 */
public final class LeasingNodeMain {

  private LeasingNodeMain() {}

  public static void main(String[] args) throws Exception {
    ManualClock clock = ManualClock.at(Long.parseLong(args[1]));
    LeasingScenarios.nodeMain(TestEngines.open(java.util.List.of(args[0]), clock), clock,
        args[2], args[3]);
  }
}
