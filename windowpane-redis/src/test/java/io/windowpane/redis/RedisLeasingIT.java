package io.windowpane.redis;

import io.windowpane.testkit.leasing.LeasingScenarios;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hot-key leasing on a real redis-server (docs/leasing.md): several leasing nodes in one JVM
 * under threads, a node killed by PID while it holds a slice, and two JVMs sharing one limit,
 * every total exact.
 */
@ExtendWith(RedisServerExtension.class)
class RedisLeasingIT {

  private final RedisServer redis;

  RedisLeasingIT(RedisServer redis) {
    this.redis = redis;
  }

  @Test
  void threeNodes_admitExactlyTheRoom() throws Exception {
    LeasingScenarios.manyNodes_admitExactlyTheRoom(
        clock -> TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS));
  }

  @Test
  void killedNode_itsSliceIsNeverSpentTwice() throws Exception {
    LeasingScenarios.killedNode_itsSliceIsNeverSpentTwice(LeasingNodeMain.class, redis.uri(),
        clock -> TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS));
  }

  @Test
  void twoJvms_shareOneLimit() throws Exception {
    LeasingScenarios.twoJvms_shareOneLimit(LeasingNodeMain.class, redis.uri(),
        clock -> TestEngines.standalone(redis, clock, ScriptMode.FUNCTIONS));
  }
}
