package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.KeyCreationRefusedException;
import io.windowpane.MemoryStatus.Level;
import io.windowpane.WindowCounter;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The memory guard of an engine whose ACL user may not run {@code INFO} (every command the
 * functions need, and no {@code +info}), on a real redis-server: the level says UNKNOWN instead
 * of a silent NORMAL, and Redis's own {@code OOM} answers still put the primary at PRESSURE,
 * where new keys are shed until a reading finds no more of them; through FCALL and EVALSHA alike.
 */
class MemoryGuardAclIT {

  @ParameterizedTest
  @EnumSource(value = ScriptMode.class, names = {"FUNCTIONS", "EVALSHA"})
  void userWithoutInfo_isUnknown_andRedisOwnOomStillShedsNewKeys(ScriptMode mode) {
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client()) {
      admin.command("ACL", "SETUSER", "limiter", "on", ">app-pw", "~wp1:*", "+fcall",
          "+function|load", "+evalsha", "+eval", "+time", "+hmget", "+hget", "+hset", "+hdel",
          "+hgetall", "+hincrby", "+del", "+pexpire", "+zadd", "+zrange", "+zrangebyscore",
          "+zremrangebyscore", "+zcount", "+zrem", "+zscore", "+incr", "+exists");
      RedisEngine engine = RedisEngine.builder().uri(redis.uri()).scripts(mode).username("limiter")
          .password("app-pw").memoryCheckInterval(Duration.ofMinutes(1))
          .timeout(Duration.ofSeconds(5)).build();
      try (Windowpane wp = Windowpane.using(engine)) {
        WindowCounter counter = wp.counter("c", MemoryGuardIT.LONG.window());
        assertThat(counter.add("old", 1)).isEqualTo(1);
        assertThat(MemoryGuardIT.check(engine).level()).isEqualTo(Level.UNKNOWN);
        assertThat(counter.add("new-while-unknown", 1)).as("nothing shed on a guess")
            .isEqualTo(1);

        MemoryGuardIT.maxmemoryAt(admin, 1.5, "noeviction"); // Redis now refuses every write
        assertThatThrownBy(() -> counter.add("old", 1)).isInstanceOf(WindowpaneException.class)
            .isNotInstanceOf(KeyCreationRefusedException.class).hasMessageContaining("OOM");
        assertThat(wp.memoryStatus().orElseThrow()).satisfies(s -> {
          assertThat(s.level()).as("at once").isEqualTo(Level.PRESSURE);
          assertThat(s.outOfMemoryErrors()).isEqualTo(1);
        });

        admin.command("CONFIG", "SET", "maxmemory", "0"); // room again, unseen by the guard
        assertThatThrownBy(() -> counter.add("new", 1))
            .isInstanceOf(KeyCreationRefusedException.class);
        assertThat(counter.add("old", 1)).as("existing keys keep working").isEqualTo(2);
        assertThat(MemoryGuardIT.check(engine).level())
            .as("a reading after an OOM answer keeps it").isEqualTo(Level.PRESSURE);
        assertThat(MemoryGuardIT.check(engine).level()).as("one without: unknown again")
            .isEqualTo(Level.UNKNOWN);
        assertThat(counter.add("new", 1)).isEqualTo(1);
        assertThat(wp.memoryStatus().orElseThrow().levelChanges()).isEqualTo(3);
      }
    }
  }
}
