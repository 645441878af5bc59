package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.GroupDecision;
import io.windowpane.KeyCreationRefusedException;
import io.windowpane.Limit;
import io.windowpane.MemoryStatus.Level;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.spi.GroupRequest;
import io.windowpane.spi.LimiterStore;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Batches and groups under memory pressure on a real redis-server, put at PRESSURE at once by a
 * {@code maxmemory} just above what it uses: a batch applies its items on existing keys once and
 * refuses only its new ones (through a chain those go, alone, to the fallback; outside one the
 * caller gets every answer in the refusal), and a group with a new key is refused whole before
 * anything is applied, through FCALL and through EVALSHA alike.
 */
class MemoryGuardBatchIT {

  private static final Limit LONG = MemoryGuardIT.LONG;
  private static final Pattern CALLS = Pattern.compile("cmdstat_(fcall|evalsha):calls=(\\d+)");
  private static final Pattern EVALSHA = Pattern.compile("cmdstat_(evalsha):calls=(\\d+)");

  private static RedisEngine engine(RedisServer redis, ScriptMode mode) {
    return RedisEngine.builder().uri(redis.uri()).scripts(mode)
        .memoryCheckInterval(Duration.ofMinutes(1)).timeout(Duration.ofSeconds(5)).build();
  }

  /** Puts the server at 90 % of its maxmemory and has {@code engine}'s guard read it. */
  private static void pressure(RespClient admin, RedisEngine engine) {
    MemoryGuardIT.maxmemoryAt(admin, 0.90, "noeviction");
    assertThat(MemoryGuardIT.check(engine).level()).isEqualTo(Level.PRESSURE);
  }

  /** FCALLs and EVALSHAs the server has run (INFO commandstats). */
  private static long scriptCalls(RespClient admin) {
    return calls(admin, CALLS);
  }

  private static long calls(RespClient admin, Pattern command) {
    Matcher m = command.matcher(String.valueOf(admin.command("INFO", "commandstats")));
    long calls = 0;
    while (m.find()) {
      calls += Long.parseLong(m.group(2));
    }
    return calls;
  }

  @Test
  void chain_batchesWithNewKeys_countExistingItemsOnceInRedis_andOnlyNewOnesInTheFallback() {
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client()) {
      RedisEngine engine = engine(redis, ScriptMode.AUTO);
      Failover chain = Failover.chain(engine, Windowpane.localBuilder().buildEngine())
          .slowWindowsToTrip(0).callTimeout(Duration.ofSeconds(2)).build();
      try (Windowpane wp = Windowpane.using(chain);
          Windowpane direct = Windowpane.using(RedisEngine.builder().uri(redis.uri())
              .memoryGuard(false).timeout(Duration.ofSeconds(5)).build())) {
        WindowCounter counter = wp.counter("c", LONG.window());
        RateLimiter limiter = wp.limiter("l", LONG);
        assertThat(counter.add("old", 1)).isEqualTo(1);
        assertThat(limiter.tryAcquire("old", 1).remaining()).isEqualTo(4);
        pressure(admin, engine);
        long keys = (Long) admin.command("DBSIZE");

        assertThat(counter.addAll(List.of("old", "new", "old"), 2)).containsExactly(3L, 2L, 5L);
        assertThat(counter.addAllAsync(List.of("new", "old"), 1).toCompletableFuture().join())
            .containsExactly(3L, 6L);
        List<Decision> d = limiter.tryAcquireAll(List.of("old", "new"), 2);
        assertThat(d).extracting(Decision::remaining).containsExactly(2L, 3L);
        assertThat(d).extracting(Decision::engine)
            .containsExactly(java.util.Optional.of("redis"), java.util.Optional.of("local"));
        assertThat(d.get(1).degraded()).isTrue();
        d = limiter.tryAcquireAllAsync(List.of("new", "old"), 1).toCompletableFuture().join();
        assertThat(d).extracting(Decision::remaining).containsExactly(2L, 1L);
        GroupDecision group = wp.tryAcquireAllOrNothing(List.of(limiter.request("old", 1),
            limiter.request("brand-new", 1))).orElseThrow();
        assertThat(group.allowed()).isTrue();
        assertThat(group.decision().engine()).as("the whole group, on the fallback")
            .contains("local");

        assertThat(direct.counter("c", LONG.window()).count("old"))
            .as("in Redis each item once: 1 + 2 + 2 + 1").isEqualTo(6);
        assertThat(direct.limiter("l", LONG).peek("old").orElseThrow().remaining())
            .as("in Redis 5 - 1 - 2 - 1 left, the group not applied; a peek of 1").isZero();
        assertThat((Long) admin.command("DBSIZE")).as("no key created").isEqualTo(keys);
        assertThat(engine.memoryStatus().orElseThrow().refusedCreations()).isEqualTo(5);
        assertThat(chain.status().get(0).health()).isEqualTo(Failover.Health.UP);
        assertThat(chain.stats().journaledBatches()).as("nothing to replay into redis").isZero();
      }
    }
  }

  /**
   * Events that carry their own time, under pressure: a new key is refused like any write (the
   * chain's fallback takes it; alone, the caller gets the refusal, a batch's with every item's
   * count), and an existing key counts each event once.
   */
  @Test
  void eventTime_newKeysAreRefused_theChainTakesOnlyThose_andEachEventCountsOnce() {
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client()) {
      RedisEngine engine = engine(redis, ScriptMode.AUTO);
      RedisEngine lone = engine(redis, ScriptMode.AUTO);
      Failover chain = Failover.chain(engine, Windowpane.localBuilder().buildEngine())
          .slowWindowsToTrip(0).callTimeout(Duration.ofSeconds(2)).build();
      try (Windowpane wp = Windowpane.using(chain); Windowpane alone = Windowpane.using(lone);
          Windowpane direct = Windowpane.using(RedisEngine.builder().uri(redis.uri())
              .memoryGuard(false).timeout(Duration.ofSeconds(5)).build())) {
        WindowCounter counter = wp.counter("c", LONG.window());
        WindowStats stats = wp.stats("s", StatsSpec.histogram(Duration.ofMinutes(1), 6));
        assertThat(counter.add("old", 1)).isEqualTo(1);
        pressure(admin, engine);
        assertThat(MemoryGuardIT.check(lone).level()).isEqualTo(Level.PRESSURE);
        long keys = (Long) admin.command("DBSIZE");
        long at = System.currentTimeMillis() - 2_000; // inside the minute, on the server's clock

        assertThat(counter.add("new-a", 1, at)).as("taken by the fallback").isEqualTo(1);
        assertThat(counter.addAll(List.of("old", "new-b"), 2, at)).containsExactly(3L, 2L);
        stats.record("new-s", 1.0, at);
        WindowCounter lonely = alone.counter("c", LONG.window());
        KeyCreationRefusedException e = catchThrowableOfType(
            () -> lonely.addAll(List.of("old", "new-c"), 1, at),
            KeyCreationRefusedException.class);
        assertThat(e.answers().orElseThrow()).containsExactly(4L, null);
        assertThat(catchThrowableOfType(() -> lonely.add("new-d", 1, at),
            KeyCreationRefusedException.class)).hasMessageContaining("new-d");

        assertThat(direct.counter("c", LONG.window()).count("old"))
            .as("in Redis each event once: 1 + 2 + 1").isEqualTo(4);
        assertThat((Long) admin.command("DBSIZE")).as("no key created").isEqualTo(keys);
        assertThat(engine.memoryStatus().orElseThrow().refusedCreations()).isEqualTo(3);
        assertThat(chain.status().get(0).health()).isEqualTo(Failover.Health.UP);
        assertThat(chain.stats().journaledBatches()).as("nothing to replay into redis").isZero();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = ScriptMode.class, names = {"FUNCTIONS", "EVALSHA"})
  void noChain_batchRefusalCarriesEveryAnswer_singleCallsAndGroupsAreRefusedWhole(
      ScriptMode mode) {
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client()) {
      RedisEngine engine = engine(redis, mode);
      try (Windowpane wp = Windowpane.using(engine)) {
        WindowCounter counter = wp.counter("c", LONG.window());
        RateLimiter limiter = wp.limiter("l", LONG);
        counter.add("old", 1);
        limiter.tryAcquire("old", 1);
        pressure(admin, engine);
        long keys = (Long) admin.command("DBSIZE");
        long calls = scriptCalls(admin);
        long evalsha = calls(admin, EVALSHA);

        KeyCreationRefusedException e = catchThrowableOfType(
            () -> counter.addAll(List.of("old", "new"), 2), KeyCreationRefusedException.class);
        assertThat(e.answers().orElseThrow()).containsExactly(3L, null);
        assertThat(e.refusedItems()).containsExactly(1);
        e = catchThrowableOfType(() -> limiter.tryAcquireAll(List.of("new", "old"), 1),
            KeyCreationRefusedException.class);
        assertThat(e.refusedItems()).containsExactly(0);
        assertThat(e.answers().orElseThrow().get(1)).isInstanceOfSatisfying(Decision.class,
            x -> assertThat(x.remaining()).isEqualTo(3));
        assertThat(catchThrowableOfType(() -> counter.add("new", 1),
            KeyCreationRefusedException.class).answers()).isEmpty();
        assertThat(catchThrowableOfType(() -> wp.tryAcquireAllOrNothing(List.of(
            limiter.request("old", 1), limiter.request("new", 1))),
            KeyCreationRefusedException.class)).hasMessageContaining("new");

        assertThat(scriptCalls(admin) - calls).as("one script call each").isEqualTo(4);
        assertThat(calls(admin, EVALSHA) - evalsha).as("the flagged calls through " + mode)
            .isEqualTo(mode == ScriptMode.EVALSHA ? 4 : 0);
        assertThat(counter.count("old")).isEqualTo(3);
        assertThat(limiter.peek("old").orElseThrow().remaining())
            .as("5 - 1 - 1 left, the group took nothing; a peek of 1").isEqualTo(2);
        assertThat((Long) admin.command("DBSIZE")).as("no key created").isEqualTo(keys);
      }
    }
  }

  /**
   * A group that cannot be one wp_group call (two limiters of one name share a Redis key) is
   * decided by ordered leases; under pressure its keys are checked first, so a new key refuses
   * the group before any lease is taken and given back.
   */
  @Test
  void orderedLeasesGroup_withANewKey_isRefusedBeforeAnyLease() {
    try (RedisServer redis = RedisServer.start(); RespClient admin = redis.client();
        RedisEngine engine = engine(redis, ScriptMode.FUNCTIONS)) {
      LimiterStore five = engine.limiterStore("g", Quota.of(LONG));
      LimiterStore seven = engine.limiterStore("g", Quota.of(Limit.of(7, LONG.window())));
      five.tryAcquire("k1", 1);
      pressure(admin, engine);
      long calls = scriptCalls(admin);
      List<GroupRequest> group = List.of(new GroupRequest(five, "a", "k1", 1, 5),
          new GroupRequest(five, "a", "k2", 1, 5), new GroupRequest(seven, "b", "k1", 1, 7));
      CompletionException e = catchThrowableOfType(
          () -> engine.tryAcquireAllOrNothingAsync(group).toCompletableFuture().join(),
          CompletionException.class);
      assertThat(e).hasCauseInstanceOf(KeyCreationRefusedException.class)
          .hasMessageContaining("k2");
      assertThat(scriptCalls(admin) - calls).as("no lease taken, none given back").isZero();
      assertThat(five.peek("k1", 1).orElseThrow().remaining()).isEqualTo(3);
    }
  }
}
