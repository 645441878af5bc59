package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.GroupDecision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.spi.AllOrNothing;
import io.windowpane.spi.Engine;
import io.windowpane.spi.GroupRequest;
import io.windowpane.spi.LimiterStore;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one-call group (wp_group) answers exactly what the ordered leases answer: a seeded random
 * sequence of groups, single requests and clock steps runs on three engines side by side, at
 * the same manual-clock instants, and every answer must agree:
 *
 * <ul>
 *   <li>Redis (database 0) deciding groups in one call ({@code RedisEngine}'s override);
 *   <li>Redis (database 1) deciding them by {@link AllOrNothing#acquire}, the engine-neutral
 *       ordered leases and give-backs, on that engine's own stores;
 *   <li>the local engine, the reference semantics, by the same ordered leases.
 * </ul>
 */
@ExtendWith(RedisServerExtension.class)
class GroupEquivalenceIT {

  private static final Pattern FCALLS = Pattern.compile("cmdstat_fcall:calls=(\\d+)");

  private final RedisServer redis;

  GroupEquivalenceIT(RedisServer redis) {
    this.redis = redis;
  }

  /** The quotas of the limiters: every algorithm, and a quota of two limits. */
  private static List<Quota> quotas() {
    return List.of(
        Quota.of(Limit.of(6, WindowSpec.panes(Duration.ofSeconds(1), 10))),
        Quota.of(Limit.of(5, WindowSpec.weighted(Duration.ofSeconds(1)))),
        Quota.of(Limit.of(4, WindowSpec.log(Duration.ofSeconds(1)))),
        Quota.of(Limit.of(8, WindowSpec.panes(Duration.ofSeconds(1), 4)),
            Limit.of(12, WindowSpec.log(Duration.ofSeconds(5)))));
  }

  /** One engine's limiter stores and how it decides a group. */
  private record Side(String name, List<LimiterStore> stores,
      Function<List<GroupRequest>, Optional<GroupDecision>> group) {}

  private static Side side(String name, Engine engine, String prefix, boolean generic) {
    List<LimiterStore> stores = new ArrayList<>();
    List<Quota> quotas = quotas();
    for (int i = 0; i < quotas.size(); i++) {
      stores.add(engine.limiterStore(prefix + i, quotas.get(i)));
    }
    return new Side(name, stores, members -> (generic ? AllOrNothing.acquire(members)
        : engine.tryAcquireAllOrNothingAsync(members).toCompletableFuture()).join());
  }

  /** An answer or the exception's class and message, comparable across engines. */
  private static Object answer(Side side, List<int[]> requests, String prefix) {
    List<GroupRequest> members = new ArrayList<>();
    List<Quota> quotas = quotas();
    for (int[] r : requests) {
      members.add(new GroupRequest(side.stores().get(r[0]), prefix + r[0], "k" + r[1], r[2],
          quotas.get(r[0]).smallestPermits()));
    }
    try {
      GroupDecision g = side.group().apply(members).orElseThrow();
      return g.decision() + " by " + g.deniedIndex() + " " + g.decisions();
    } catch (IllegalArgumentException | CompletionException e) {
      Throwable cause = e instanceof CompletionException ? e.getCause() : e;
      return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {7, 1_009, 424_242})
  void randomGroups_oneCallAnswersAsTheOrderedLeases(long seed) {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 123 + seed);
    String prefix = "eq" + seed + "-";
    try (RedisEngine oneCall = TestEngines.redisEngine(redis, clock, 0);
        RedisEngine leases = TestEngines.redisEngine(redis, clock, 1);
        Engine local = Windowpane.localBuilder().clock(clock).maxKeys(10_000)
            .sweepInterval(Duration.ofSeconds(1)).buildEngine()) {
      List<Side> sides = List.of(side("one call", oneCall, prefix, false),
          side("ordered leases on Redis", leases, prefix, true),
          side("local engine", local, prefix, true));
      Random random = new Random(seed);
      int groups = 0;
      int denied = 0;
      for (int op = 0; op < 500; op++) {
        int kind = random.nextInt(100);
        if (kind < 15) {
          clock.advance(1 + random.nextInt(700));
          continue;
        }
        List<int[]> requests = new ArrayList<>();
        int size = kind < 35 ? 1 : 2 + random.nextInt(4);
        for (int i = 0; i < size; i++) {
          requests.add(new int[] {random.nextInt(4), random.nextInt(3), 1 + random.nextInt(3)});
        }
        Object expected = answer(sides.get(1), requests, prefix);
        for (Side side : List.of(sides.get(0), sides.get(2))) {
          assertThat(answer(side, requests, prefix)).as("seed %d op %d %s: %s", seed, op,
              side.name(), describe(requests)).isEqualTo(expected);
        }
        groups++;
        if (String.valueOf(expected).contains("by OptionalInt[")) {
          denied++;
        }
      }
      assertThat(groups).isGreaterThan(300);
      assertThat(denied).as("denied groups").isGreaterThan(30);
    }
  }

  private static String describe(List<int[]> requests) {
    StringBuilder out = new StringBuilder();
    for (int[] r : requests) {
      out.append(" (limiter ").append(r[0]).append(", k").append(r[1]).append(", ").append(r[2])
          .append(')');
    }
    return out.toString();
  }

  @Test
  void aGroupOnOneServer_isOneCall() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC);
    try (RedisEngine engine = TestEngines.redisEngine(redis, clock, 0);
        RespClient admin = redis.client()) {
      Side side = side("one call", engine, "calls-", false);
      List<int[]> requests = List.of(new int[] {0, 0, 1}, new int[] {1, 0, 1},
          new int[] {2, 1, 2}, new int[] {3, 2, 1});
      long before = fcalls(admin);
      assertThat(String.valueOf(answer(side, requests, "calls-"))).startsWith("allowed");
      assertThat(fcalls(admin) - before).isEqualTo(1);
    }
  }

  /** How many FCALLs the server has run (INFO commandstats). */
  static long fcalls(RespClient admin) {
    Matcher m = FCALLS.matcher(String.valueOf(admin.command("INFO", "commandstats")));
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }
}
