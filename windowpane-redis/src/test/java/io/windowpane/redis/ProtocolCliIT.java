package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.testkit.process.TestBinaries;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * docs/redis-protocol.md is enough for a non-Java caller: {@code redis-cli} calls the functions
 * with the documented keys and arguments, on the same state as the Java engine, and both agree.
 */
@ExtendWith(RedisServerExtension.class)
class ProtocolCliIT {

  private static final long T = 1_700_000_000_000L;

  private final RedisServer redis;

  ProtocolCliIT(RedisServer redis) {
    this.redis = redis;
  }

  /** Runs redis-cli against the test server; returns its output lines. */
  private List<String> cli(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(TestBinaries.REDIS_CLI.locate().toString(),
        "-h", redis.host(), "-p", Integer.toString(redis.port())));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("redis-cli finished").isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    return out.isEmpty() ? List.of() : List.of(out.split("\n"));
  }

  @Test
  void acquire_fromRedisCli_andFromJava_shareOneQuota() throws Exception {
    ManualClock clock = ManualClock.at(T);
    Limit perSecond = Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10));
    Limit perHour = Limit.of(1000, WindowSpec.panes(Duration.ofHours(1), 60));
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      RateLimiter api = wp.limiter("api", Quota.of(perSecond, perHour));
      assertThat(api.tryAcquire("user:42", 2)).isEqualTo(Decision.allowed(8));

      String[] acquire = {"FCALL", "wp_acquire", "2", "wp1:r:{api:user:42:3}:0:p1000/10",
          "wp1:r:{api:user:42:3}:1:p3600000/60", Long.toString(T), "6", "2",
          "p", "1000", "10", "10", "p", "3600000", "60", "1000"};
      assertThat(cli(acquire)).containsExactly("1", "2", "0", "0");
      assertThat(api.tryAcquire("user:42", 2)).isEqualTo(Decision.allowed(0));
      // denied by limit 1 (10/s); the oldest pane leaves 1000 ms after T
      assertThat(cli(acquire)).containsExactly("0", "0", "1", "1000");
      assertThat(api.tryAcquire("user:42", 1))
          .isEqualTo(Decision.denied(0, perSecond, 1000));

      // the server's clock: the empty time argument
      String[] serverTime = acquire.clone();
      serverTime[5] = "";
      serverTime[3] = "wp1:r:{api:user:7:3}:0:p1000/10";
      serverTime[4] = "wp1:r:{api:user:7:3}:1:p3600000/60";
      assertThat(cli(serverTime)).containsExactly("1", "4", "0", "0");
    }
  }

  @Test
  void take_fromRedisCli_answersAnIntegerWhenAllowed_andTheArrayWhenDenied() throws Exception {
    ManualClock clock = ManualClock.at(T);
    Limit perSecond = Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10));
    Limit perHour = Limit.of(1000, WindowSpec.panes(Duration.ofHours(1), 60));
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      RateLimiter api = wp.limiter("api", Quota.of(perSecond, perHour));
      assertThat(api.tryAcquire("user:9", 2)).isEqualTo(Decision.allowed(8));

      String[] take = {"FCALL", "wp_take", "2", "wp1:r:{api:user:9:3}:0:p1000/10",
          "wp1:r:{api:user:9:3}:1:p3600000/60", Long.toString(T), "6", "2",
          "p", "1000", "10", "10", "p", "3600000", "60", "1000"};
      assertThat(cli(take)).as("allowed: the remaining room alone").containsExactly("2");
      assertThat(api.tryAcquire("user:9", 2)).isEqualTo(Decision.allowed(0));
      assertThat(cli(take)).as("denied: as wp_acquire").containsExactly("0", "0", "1", "1000");
      assertThat(api.tryAcquire("user:9", 1)).isEqualTo(Decision.denied(0, perSecond, 1000));

      // a weighted window and a log window answer the same way
      String[] weighted = {"FCALL", "wp_take", "1", "wp1:r:{w:k:1}:0:w1000", Long.toString(T), "3",
          "1", "w", "1000", "1", "4"};
      assertThat(cli(weighted)).containsExactly("1");
      // the next fixed window weighs this one's 3 by (1 - e / 1000): 1 fits from e = 667
      assertThat(cli(weighted)).containsExactly("0", "1", "1", "1667");
      String[] log = {"FCALL", "wp_take", "2", "wp1:r:{l:k:1}:0:l1000", "wp1:r:{l:k:1}:0:l1000:m",
          Long.toString(T), "3", "1", "l", "1000", "1", "4"};
      assertThat(cli(log)).containsExactly("1");
      assertThat(cli(log)).containsExactly("0", "1", "1", "1000");
    }
  }

  @Test
  void counters_fromRedisCli_andFromJava_agree() throws Exception {
    ManualClock clock = ManualClock.at(T);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      WindowCounter logins = wp.counter("logins", WindowSpec.log(Duration.ofMinutes(1)));
      assertThat(cli("FCALL", "wp_add", "2", "wp1:c:{logins:alice:6}:l60000",
          "wp1:c:{logins:alice:6}:l60000:m", Long.toString(T), "5", "l", "60000", "1"))
          .containsExactly("5");
      assertThat(logins.add("alice", 2)).isEqualTo(7);
      clock.advance(60_000);
      assertThat(cli("FCALL", "wp_count", "2", "wp1:c:{logins:alice:6}:l60000",
          "wp1:c:{logins:alice:6}:l60000:m", Long.toString(T + 59_999), "l", "60000", "1"))
          .containsExactly("7");
      assertThat(logins.count("alice")).as("the events at T have left").isZero();
      assertThat(cli("FCALL", "wp_version", "0")).containsExactly("3");
    }
  }

  @Test
  void groupsAndBatches_fromRedisCli_andFromJava_agree() throws Exception {
    ManualClock clock = ManualClock.at(T);
    Limit perUser = Limit.of(5, WindowSpec.panes(Duration.ofSeconds(1), 10));
    Limit perTenant = Limit.of(3, WindowSpec.log(Duration.ofSeconds(1)));
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      RateLimiter users = wp.limiter("gu", perUser);
      RateLimiter tenants = wp.limiter("gt", perTenant);
      // members in the order limiter name, then key: gt (tenant acme) before gu (user 42)
      String[] group = {"FCALL", "wp_group", "3", "wp1:r:{gt:acme:2}:0:l1000",
          "wp1:r:{gt:acme:2}:0:l1000:m", "wp1:r:{gu:42:2}:0:p1000/10", Long.toString(T), "2",
          "1", "1", "l", "1000", "1", "3", "2", "1", "p", "1000", "10", "5"};
      assertThat(cli(group)).as("allowed: 0, then each remaining").containsExactly("0", "2", "3");
      assertThat(wp.tryAcquireAllOrNothing(List.of(users.request("42", 2),
          tenants.request("acme", 1))).orElseThrow().decisions()).containsExactly(
          java.util.Optional.of(Decision.allowed(1)), java.util.Optional.of(Decision.allowed(1)));
      // the user has room for 1 only: member 2 denies, member 1 answers the room it had
      assertThat(cli(group)).containsExactly("2", "1", "1", "1", "1000");
      assertThat(tenants.peek("acme", 1).orElseThrow()).isEqualTo(Decision.allowed(0));

      String[] takeAll = {"FCALL", "wp_take_all", "2", "wp1:r:{gu:42:2}:0:p1000/10",
          "wp1:r:{gu:7:2}:0:p1000/10", Long.toString(T), "1", "1", "p", "1000", "10", "5"};
      assertThat(cli(takeAll)).as("3 integers per key").containsExactly("0", "0", "0",
          "4", "0", "0");
      assertThat(users.tryAcquireAll(List.of("42", "7"), 1)).containsExactly(
          Decision.denied(0, perUser, 1000), Decision.allowed(3));
      WindowCounter hits = wp.counter("gh", WindowSpec.weighted(Duration.ofSeconds(1)));
      assertThat(cli("FCALL", "wp_add_all", "2", "wp1:c:{gh:a:2}:w1000", "wp1:c:{gh:b:2}:w1000",
          Long.toString(T), "2", "w", "1000", "1", "wp1:c:{gh:a:2}:w1000"))
          .as("an extra key after the spec: an item like the others").containsExactly("2", "2",
              "4");
      assertThat(hits.countAll(List.of("a", "b"))).containsExactly(4L, 2L);
    }
  }

  /** The caller's time t, keys kept 60 s past their logical expiry (slow machines). */
  private static String at(long t) {
    return t + "+60000";
  }

  /** HGETALL's field-value lines as a map. */
  private java.util.Map<String, String> hash(String key) throws Exception {
    List<String> lines = cli("HGETALL", key);
    java.util.Map<String, String> out = new java.util.TreeMap<>();
    for (int i = 0; i + 1 < lines.size(); i += 2) {
      out.put(lines.get(i), lines.get(i + 1));
    }
    return out;
  }

  @Test
  void panes_fromRedisCli_storeTheDocumentedLayout() throws Exception {
    // 1 s in 10 panes of 100 ms: T is pane 17,000,000,000 (slot 0)
    String key = "wp1:c:{views:page:5}:p1000/10";
    String[] add = {"FCALL", "wp_add", "1", key, at(T), "2", "p", "1000", "10"};
    assertThat(cli(add)).containsExactly("2");
    assertThat(hash(key)).isEqualTo(java.util.Map.of("v", "1", "h", "17000000000", "o", "0",
        "0", "2"));
    add[4] = at(T + 250); // two panes on: the head moves, pane 0 becomes older
    add[5] = "3";
    assertThat(cli(add)).containsExactly("5");
    assertThat(hash(key)).as("slot 1 (pane T - 900, left) zeroed")
        .isEqualTo(java.util.Map.of("v", "1", "h", "17000000002", "o", "2",
            "0", "2", "1", "0", "2", "3"));
    add[4] = at(T + 299); // the same pane: its slot alone changes
    add[5] = "1";
    assertThat(cli(add)).containsExactly("6");
    assertThat(hash(key)).containsEntry("2", "4").containsEntry("o", "2").hasSize(6);
    add[4] = at(T + 300); // one pane on: pane T - 700 (slot 3, empty) leaves, pane 2 is older
    assertThat(cli(add)).containsExactly("7");
    assertThat(hash(key)).isEqualTo(java.util.Map.of("v", "1", "h", "17000000003", "o", "6",
        "0", "2", "1", "0", "2", "4", "3", "1"));
    // denied: nothing written, the retry-after from the older pane read in the same call
    String[] take = {"FCALL", "wp_take", "1", key, at(T + 950), "1", "1", "p", "1000",
        "10", "6"};
    java.util.Map<String, String> before = hash(key);
    assertThat(cli(take)).containsExactly("0", "0", "1", "50"); // pane 0 leaves at T + 1000
    assertThat(hash(key)).as("a denial writes nothing").isEqualTo(before);
  }

  @Test
  void aKeyOfAnotherFormat_isRefused_notMisread() throws Exception {
    // a key of an unknown format is refused, not misread
    cli("HSET", "wp1:c:{old:x:3}:w1000", "v", "9", "w", "1700000000", "a", "1", "b", "0");
    assertThat(String.join("\n", cli("FCALL", "wp_count", "1", "wp1:c:{old:x:3}:w1000",
        at(T), "w", "1000", "1"))).startsWith("WPFORMAT");
  }

  @Test
  void peek_fromRedisCli_answersAsTheNextAcquire_readOnly_andWritesNothing() throws Exception {
    ManualClock clock = ManualClock.at(T);
    Limit perSecond = Limit.of(3, WindowSpec.panes(Duration.ofSeconds(1), 10));
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      RateLimiter api = wp.limiter("peek", Quota.of(perSecond));
      assertThat(api.tryAcquire("u", 2)).isEqualTo(Decision.allowed(1));
      String key = "wp1:r:{peek:u:4}:0:p1000/10";
      String dump = String.join("\n", cli("DUMP", key));
      long ttl = Long.parseLong(cli("PTTL", key).get(0));
      String[] peek = {"FCALL_RO", "wp_peek", "1", key, Long.toString(T + 100), "1", "1",
          "p", "1000", "10", "3"};
      assertThat(cli(peek)).as("FCALL_RO: registered no-writes").containsExactly("1", "0", "0",
          "0");
      peek[5] = "2";
      assertThat(cli(peek)).containsExactly("0", "1", "1", "900");
      assertThat(String.join("\n", cli("DUMP", key))).as("unchanged").isEqualTo(dump);
      assertThat(Long.parseLong(cli("PTTL", key).get(0))).as("not extended")
          .isLessThanOrEqualTo(ttl);
      clock.set(T + 100);
      assertThat(api.tryAcquire("u", 2)).isEqualTo(Decision.denied(1, perSecond, 900));
      assertThat(api.peek("u", 1)).contains(Decision.allowed(0));
      // a log whose entries have left: peek skips them and removes nothing
      String[] take = {"FCALL", "wp_take", "2", "wp1:r:{peek:l:4}:0:l1000",
          "wp1:r:{peek:l:4}:0:l1000:m", Long.toString(T), "1", "1", "l", "1000", "1", "2"};
      assertThat(cli(take)).containsExactly("1");
      take[5] = Long.toString(T + 500);
      assertThat(cli(take)).containsExactly("0");
      String[] logPeek = take.clone();
      logPeek[0] = "FCALL_RO";
      logPeek[1] = "wp_peek";
      logPeek[5] = Long.toString(T + 1_200);
      logPeek[6] = "2";
      assertThat(cli(logPeek)).containsExactly("0", "1", "1", "300");
      assertThat(cli("ZCARD", "wp1:r:{peek:l:4}:0:l1000")).containsExactly("2");
    }
  }

  @Test
  void topKeys_fromRedisCli_feedAndRankTheSketch() throws Exception {
    ManualClock clock = ManualClock.at(T);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      WindowCounter hits = wp.counter("hits", WindowSpec.panes(Duration.ofSeconds(1), 10)
          .withTopKeys(2));
      hits.add("a", 3);
      assertThat(hits.top(2)).as("the feed was sent after the add; top waits for it")
          .contains(List.of(new io.windowpane.TopKey("a", 3, 0)));
      String z = "wp1:t:{c:hits}:p1000/10/k2";
      String h = z + ":h";
      String[] add = {"FCALL", "wp_topadd", "2", z, h, Long.toString(T), "1000", "10", "2", "1",
          "b"};
      assertThat(cli(add)).containsExactly("1");
      add[10] = "c"; // the pane's two counters are taken: c takes over b's (1), error 1
      assertThat(cli(add)).containsExactly("2");
      assertThat(cli("ZRANGE", z, "0", "-1", "WITHSCORES")).containsExactly("0:c", "2", "0:a",
          "3");
      assertThat(hash(h)).containsEntry("v", "1").containsEntry("p0", "17000000000")
          .containsEntry("0:c", "1").doesNotContainKey("0:b");
      String[] top = {"FCALL_RO", "wp_top", "2", z, h, Long.toString(T + 500), "1000", "10", "2",
          "2"};
      // the pane is full, smallest counter 2: a = 2 + (3 - 2), c = 2 + (2 - 2), low 1
      assertThat(cli(top)).containsExactly("a", "3", "0", "c", "2", "1");
      assertThat(hits.top(2)).contains(List.of(new io.windowpane.TopKey("a", 3, 0),
          new io.windowpane.TopKey("c", 2, 1)));
      top[5] = Long.toString(T + 1_000);
      assertThat(cli(top)).as("pane 0 has left the window").isEmpty();
    }
  }

  @Test
  void replay_fromRedisCli_landsInThePaneOfItsTime_once() throws Exception {
    ManualClock clock = ManualClock.at(T + 9_500);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      WindowCounter orders = wp.counter("orders", WindowSpec.panes(Duration.ofSeconds(10), 10));
      assertThat(orders.add("shop:1")).isEqualTo(1);
      String key = "wp1:c:{orders:shop:1:6}:p10000/10";
      String[] replay = {"FCALL", "wp_replay", "2", key + ":y:batch-17", key,
          Long.toString(T + 9_500), Long.toString(T + 500), "batch-17", "2", "1", "p", "10000",
          "10"};
      assertThat(cli(replay)).containsExactly("2");
      assertThat(cli(replay)).as("already replayed: nothing changed").containsExactly("-1");
      assertThat(orders.count("shop:1")).isEqualTo(3);
      clock.set(T + 10_000);
      assertThat(orders.count("shop:1")).as("the pane of T + 500 has left").isEqualTo(1);
      replay[5] = Long.toString(T + 10_000);
      replay[7] = "batch-18";
      replay[3] = key + ":y:batch-18";
      assertThat(cli(replay)).as("no window holds T + 500 any more: dropped")
          .containsExactly("0");
    }
  }

  @Test
  void leaseAndRelease_fromRedisCli_shareTheQuotaWithJava_releasedOncePerId() throws Exception {
    ManualClock clock = ManualClock.at(T + 250);
    Limit perSecond = Limit.of(10, WindowSpec.panes(Duration.ofSeconds(1), 10));
    Limit perMinute = Limit.of(25, WindowSpec.log(Duration.ofMinutes(1)));
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      RateLimiter api = wp.limiter("lease", Quota.of(perSecond, perMinute));
      assertThat(api.tryAcquire("u", 3)).isEqualTo(Decision.allowed(7));
      String p = "wp1:r:{lease:u:5}:0:p1000/10";
      String l = "wp1:r:{lease:u:5}:1:l60000";
      String t250 = Long.toString(T + 250);
      // wp_acquire's KEYS and ARGV, min (2) in the permits' place, then max (100)
      String[] lease = {"FCALL", "wp_lease", "3", p, l, l + ":m", at(T + 250), "2", "2",
          "p", "1000", "10", "10", "l", "60000", "1", "25", "100"};
      assertThat(cli(lease)).as("the largest that fits, recorded at T + 250")
          .containsExactly("7", t250, "0", "0", "0");
      assertThat(cli(lease)).as("fewer than min fit: the denial of 2, nothing recorded")
          .containsExactly("0", t250, "0", "1", "950");
      String[] release = {"FCALL", "wp_release", "4", p + ":g:lease-1", p, l, l + ":m",
          at(T + 600), t250, "lease-1", "4", "2", "p", "1000", "10", "l", "60000", "1"};
      assertThat(cli(release)).as("4 taken out of both limits").containsExactly("4");
      assertThat(cli(release)).as("the same id again: nothing changed").containsExactly("-1");
      clock.set(T + 600);
      assertThat(api.tryAcquire("u", 4)).isEqualTo(Decision.allowed(0));
      assertThat(cli("ZRANGE", l, "0", "-1")).as("T + 250's entries lowered in the set's order")
          .containsExactly("2:6", "3:4");
      assertThat(hash(l + ":m")).containsEntry("c", "10");
      release[3] = p + ":g:lease-2";
      release[7] = at(T + 60_250);
      release[9] = "lease-2";
      assertThat(cli(release)).as("no window holds T + 250 any more").containsExactly("0");
      lease[lease.length - 1] = "1";
      assertThat(String.join("\n", cli(lease)))
          .startsWith("WPARGS max must be an integer in [2, 4503599627370496], was 1");
    }
  }

  @Test
  void locks_fromRedisCli_andFromJava_excludeEachOtherAndShareFencingTokens() throws Exception {
    ManualClock clock = ManualClock.at(T);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      io.windowpane.DistributedLock lock = wp.lock("nightly-report",
          io.windowpane.LockOptions.defaults().withoutWatchdog());
      io.windowpane.LockLease java = lock.tryLock().orElseThrow();
      String now = Long.toString(T + 4_000);
      String[] take = {"FCALL", "wp_lock", "2", "wp1:l:{nightly-report}",
          "wp1:l:{nightly-report}:f", now, "cli-token", "30000"};
      assertThat(cli(take)).as("held by Java for 6 s more").containsExactly("0", "6000");
      assertThat(cli("FCALL", "wp_unlock", "1", "wp1:l:{nightly-report}", now, "cli-token"))
          .as("not the holder's token").containsExactly("0");
      assertThat(java.release()).isTrue();
      assertThat(cli(take)).containsExactly("1", Long.toString(java.fencingToken() + 1));
      assertThat(lock.tryLock()).as("held by redis-cli").isEmpty();
      assertThat(cli("FCALL", "wp_renew", "1", "wp1:l:{nightly-report}", now, "cli-token",
          "30000")).containsExactly("1");
      assertThat(cli("FCALL", "wp_unlock", "1", "wp1:l:{nightly-report}", now, "cli-token"))
          .containsExactly("1");
      assertThat(lock.tryLock().orElseThrow().fencingToken())
          .isEqualTo(java.fencingToken() + 2);
    }
  }

  @Test
  void badArguments_fromRedisCli_getTheDocumentedErrors() throws Exception {
    try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri()).build())) {
      assertThat(wp.engineName()).isEqualTo("redis");
      assertThat(String.join("\n", cli("FCALL", "wp_acquire", "1", "wp1:r:{x:k:1}:0:p1000/10", "",
          "0", "1", "p", "1000", "10", "5")))
          .startsWith("WPARGS permits must be an integer in [1, 4503599627370496], was 0");
      assertThat(String.join("\n", cli("FCALL", "wp_add", "1", "wp1:c:{x:k:1}:p1000/7", "", "1",
          "p", "1000", "7"))).startsWith("WPARGS panes must divide the window");
      assertThat(cli("EXISTS", "wp1:r:{x:k:1}:0:p1000/10", "wp1:c:{x:k:1}:p1000/7"))
          .as("nothing changed").containsExactly("0");
    }
  }

  @Test
  void noNewKeysFlag_fromRedisCli_refusesOnlyCreations_andChangesNothing() throws Exception {
    try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(redis.uri()).build())) {
      String old = "wp1:c:{nk:old:2}:p60000/10";
      String fresh = "wp1:c:{nk:new:2}:p60000/10";
      assertThat(cli("FCALL", "wp_add", "1", old, "", "1", "p", "60000", "10"))
          .containsExactly("1");
      assertThat(cli("FCALL", "wp_add", "1", old, "!", "2", "p", "60000", "10"))
          .as("an existing key keeps working").containsExactly("3");
      assertThat(String.join("\n", cli("FCALL", "wp_add", "1", fresh, "!", "2", "p", "60000",
          "10"))).startsWith("WPNOKEY " + fresh);
      assertThat(String.join("\n", cli("FCALL", "wp_take", "1", fresh, "!", "1", "1", "p",
          "60000", "10", "5"))).startsWith("WPNOKEY");
      assertThat(cli("FCALL", "wp_add_all", "2", old, fresh, "!", "1", "p", "60000", "10"))
          .as("per item: -2 for the new key").containsExactly("4", "-2");
      assertThat(cli("FCALL", "wp_take_all", "2", old, fresh, "!", "1", "1", "p", "60000", "10",
          "10")).containsExactly("5", "0", "0", "-2", "0", "0");
      assertThat(cli("EXISTS", fresh)).as("nothing created").containsExactly("0");
      assertThat(cli("FCALL", "wp_add", "1", fresh, "", "2", "p", "60000", "10"))
          .as("without the flag it is created").containsExactly("2");
    }
  }

  private static String[] concat(String[] head, String... tail) {
    String[] out = Arrays.copyOf(head, head.length + tail.length);
    System.arraycopy(tail, 0, out, head.length, tail.length);
    return out;
  }

  @Test
  void histogram_fromRedisCli_andFromJava_agree() throws Exception {
    ManualClock clock = ManualClock.at(T);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      WindowStats latency = wp.stats("latency",
          StatsSpec.histogram(Duration.ofMinutes(1), 12));
      // the hash and its window aggregate; W, P, accuracy, minIndex and span of the default
      // mapping (1% over [1e-9, 1e15])
      String hash = "wp1:s:{latency:merchant:7:7}:h60000/12/0.01/-1036/2764";
      String[] record = {"FCALL", "wp_record", "2", hash, hash + ":a", Long.toString(T),
          "60000", "12", "0.01", "-1036", "2764"};
      assertThat(cli(concat(record, "42.5", "17", "0"))).as("the pane's count")
          .containsExactly("3");
      latency.recordAll("merchant:7", 1000.25, -3);
      Summary s = latency.summary("merchant:7");
      assertThat(s.count()).isEqualTo(5);
      assertThat(s.sum()).isEqualTo(1056.75);
      assertThat(s.min()).isEqualTo(-3);
      assertThat(s.max()).isEqualTo(1000.25);

      String[] summary = Arrays.copyOf(record, record.length);
      summary[1] = "wp_summary";
      summary[5] = Long.toString(T + 59_999);
      List<String> expected = new ArrayList<>(List.of("5", "1056.75", "-3", "1000.25"));
      for (int key : s.histogram().orElseThrow().keys()) {
        expected.add(Integer.toString(key));
        expected.add(Long.toString(s.histogram().orElseThrow().count(key)));
      }
      assertThat(expected).as("five buckets, 0 among them").hasSize(4 + 2 * 5);
      assertThat(cli(summary)).isEqualTo(expected);
      assertThat(cli("HLEN", hash + ":a")).as("the aggregate: one field per bucket")
          .containsExactly("5");

      summary[5] = Long.toString(T + 60_000); // the pane of T has left
      assertThat(cli(summary)).containsExactly("0", "0", "nan", "nan");
      clock.set(T + 60_000);
      assertThat(latency.summary("merchant:7").isEmpty()).isTrue();
    }
  }

  @Test
  void exact_fromRedisCli_andFromJava_agree() throws Exception {
    ManualClock clock = ManualClock.at(T);
    try (Windowpane wp = TestEngines.standalone(redis, clock, ScriptMode.AUTO)) {
      WindowStats amounts = wp.stats("amounts",
          StatsSpec.exact(Duration.ofMinutes(10)).withMaxValues(3));
      String set = "wp1:x:{amounts:card:1:7}:x600000";
      String[] record = {"FCALL", "wp_xrecord", "2", set, set + ":m", Long.toString(T),
          "600000", "3"};
      assertThat(cli(concat(record, "19.99", "5"))).as("values held").containsExactly("2");
      amounts.record("card:1", 0.1);
      Summary s = amounts.summary("card:1");
      assertThat(s.count()).isEqualTo(3);
      assertThat(s.quantile(0.5)).isEqualTo(5);
      assertThat(s.sum()).isEqualTo(Summary.ofValues(new double[] {19.99, 5, 0.1}).sum());

      List<String> values = cli("FCALL", "wp_xsummary", "2", set, set + ":m",
          Long.toString(T + 1), "600000");
      assertThat(values).containsExactlyInAnyOrder("19.989999999999998", "5",
          "0.10000000000000001"); // %.17g: each reads back as the same double
      assertThat(values.stream().mapToDouble(Double::parseDouble).sorted().toArray())
          .containsExactly(0.1, 5, 19.99);
      assertThat(String.join("\n", cli(concat(record, "1"))))
          .startsWith("WPFULL " + set + " holds 3 values and may hold at most 3 (maxValues); "
              + "1 more refused, nothing recorded");
      assertThat(amounts.summary("card:1").count()).isEqualTo(3);
    }
  }

  @Test
  void stats_badArguments_fromRedisCli_getTheDocumentedErrors() throws Exception {
    String hash = "wp1:s:{bad:k:3}:h1000/10/0.01/-1036/2764";
    String[] record = {"FCALL", "wp_record", "2", hash, hash + ":a", "", "1000", "10", "0.01",
        "-1036", "2764"};
    assertThat(String.join("\n", cli(concat(record, "1", "nan"))))
        .startsWith("WPARGS value must be a finite number, was nan");
    assertThat(String.join("\n", cli(record)))
        .startsWith("WPARGS values must hold 1 to 10000 values, was 0");
    String[] badAccuracy = record.clone();
    badAccuracy[8] = "0.5";
    assertThat(String.join("\n", cli(concat(badAccuracy, "1"))))
        .startsWith("WPARGS accuracy must be a number in [0.001, 0.2], was 0.5");
    String set = "wp1:x:{bad:k:3}:x1000";
    assertThat(String.join("\n", cli("FCALL", "wp_xrecord", "2", set, set + ":m", "", "1000",
        "0", "1"))).startsWith("WPARGS maxValues must be an integer in [1, 1000000], was 0");
    assertThat(cli("EXISTS", hash, hash + ":a", set, set + ":m")).as("nothing changed")
        .containsExactly("0");
  }
}
