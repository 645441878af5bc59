package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.CapacityExceededException;
import io.windowpane.Limit;
import io.windowpane.LogBuckets;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the stored layouts look like in Redis: physical TTLs within W + r of the last recorded
 * event, denied requests and summaries that extend nothing, a pane hash that stays at P fields
 * however many events it saw, a histogram hash that drops every field of a pane leaving the
 * window and a window aggregate that always equals the sum of the stored panes' buckets, a log
 * capped at the limit, an exact window's refusal that changes nothing, and format versions
 * checked on read.
 */
@ExtendWith(RedisServerExtension.class)
class ExpiryAndLayoutIT {

  private static final Duration MINUTE = Duration.ofMinutes(1);

  private final RedisServer redis;

  ExpiryAndLayoutIT(RedisServer redis) {
    this.redis = redis;
  }

  private static long asLong(Object reply) {
    return reply instanceof Long ? (Long) reply : Long.parseLong((String) reply);
  }

  @Test
  void serverTime_everyLayoutExpiresWithinWindowPlusResolution() {
    try (Windowpane wp = Windowpane.using(TestEngines.builder(redis).build());
        RespClient c = redis.client()) {
      for (WindowSpec spec : List.of(WindowSpec.panes(MINUTE, 60), WindowSpec.weighted(MINUTE),
          WindowSpec.log(MINUTE))) {
        String name = "ttl-" + spec.algorithm().name().toLowerCase().replace('_', '-');
        wp.counter(name, spec).add("k", 5);
        List<?> keys = (List<?>) c.command("KEYS",
            "wp1:c:{" + name + ":k:" + name.length() + "}*");
        assertThat(keys).as("%s", spec).hasSize(spec.algorithm().name().equals("SLIDING_LOG") ? 2 : 1);
        for (Object key : keys) {
          long ttl = asLong(c.command("PTTL", (String) key));
          assertThat(ttl).as("%s %s", spec, key).isPositive()
              .isLessThanOrEqualTo(spec.expiryMillis());
        }
      }
    }
  }

  @Test
  void deniedRequests_doNotExtendTheExpiry() {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = Windowpane.using(TestEngines.builder(redis).clock(clock)
        .expiryGrace(Duration.ZERO).build()); RespClient c = redis.client()) {
      for (WindowSpec spec : List.of(WindowSpec.panes(MINUTE, 60), WindowSpec.weighted(MINUTE),
          WindowSpec.log(MINUTE))) {
        String name = "deny-" + spec.algorithm().name().toLowerCase().replace('_', '-');
        RateLimiter limiter = wp.limiter(name, Limit.of(1, spec));
        assertThat(limiter.tryConsume("k", 1)).isTrue();
        String holder = "wp1:r:{" + name + ":k:" + name.length() + "}:0:"
            + (spec.panes() > 1 ? "p60000/60"
                : spec.algorithm().name().equals("SLIDING_LOG") ? "l60000" : "w60000");
        boolean log = spec.algorithm().name().equals("SLIDING_LOG");
        Object expiry = log ? c.command("HGET", holder + ":m", "e") : null; // the log's meta
        long ttl = asLong(c.command("PTTL", holder));
        clock.advance(30_000);
        assertThat(limiter.tryConsume("k", 1)).as("%s", spec).isFalse();
        assertThat(asLong(c.command("PTTL", holder))).as("%s: no PEXPIRE on denial", spec)
            .isLessThanOrEqualTo(ttl);
        if (log) {
          assertThat(c.command("HGET", holder + ":m", "e")).isEqualTo(expiry);
        }
        clock.set(clock.millis() - 30_000);
      }
    }
  }

  @Test
  void panes_hashKeepsAtMostPFieldsAndLogAtMostTheLimit() {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = Windowpane.using(TestEngines.builder(redis).clock(clock)
        .expiryGrace(Duration.ofMinutes(10)).build()); RespClient c = redis.client()) {
      WindowCounter panes = wp.counter("bounded", WindowSpec.panes(MINUTE, 60));
      RateLimiter log = wp.limiter("capped", Limit.of(500, WindowSpec.log(MINUTE)));
      String hash = "wp1:c:{bounded:k:7}:p60000/60";
      String set = "wp1:r:{capped:k:6}:0:l60000";
      for (int i = 1; i <= 30_000; i++) { // 30,000 events over three minutes
        panes.add("k");
        log.tryConsume("k", 1);
        clock.advance(6);
        if (i % 1000 == 0) {
          assertThat(asLong(c.command("HLEN", hash))).as("after %d events", i)
              .isLessThanOrEqualTo(60 + 3); // v, h, o and at most P panes
          assertThat(asLong(c.command("ZCARD", set))).isLessThanOrEqualTo(500);
        }
      }
      assertThat(panes.count("k")).isBetween(59L * 10_000 / 60, 10_000L);
    }
  }

  @Test
  void aKeyInAnotherFormat_isAnErrorNotAWrongAnswer() {
    try (Windowpane wp = Windowpane.using(TestEngines.builder(redis).build());
        RespClient c = redis.client()) {
      c.command("HSET", "wp1:c:{fmt:k:3}:p1000/10", "v", "9", "c", "5");
      WindowCounter counter = wp.counter("fmt", WindowSpec.panes(Duration.ofSeconds(1), 10));
      assertThatThrownBy(() -> counter.add("k"))
          .isInstanceOf(io.windowpane.WindowpaneException.class)
          .hasMessageContaining("WPFORMAT");
      assertThat(c.command("HGET", "wp1:c:{fmt:k:3}:p1000/10", "c")).isEqualTo("5");
    }
  }

  /** The hash of a default histogram window (1% over [1e-9, 1e15]: minIndex -1036, span 2764). */
  private static String histogramKey(String name, String key, long windowMillis, int panes) {
    return "wp1:s:{" + name + ":" + key + ":" + name.length() + "}:h" + windowMillis + "/" + panes
        + "/0.01/-1036/2764";
  }

  @Test
  void stats_bothKindsExpireWithinWindowPlusResolution() {
    try (Windowpane wp = Windowpane.using(TestEngines.builder(redis).build());
        RespClient c = redis.client()) {
      for (StatsSpec spec : List.of(StatsSpec.histogram(MINUTE, 12), StatsSpec.exact(MINUTE))) {
        String name = "ttl-stats-" + (spec.isExact() ? "exact" : "histogram");
        wp.stats(name, spec).recordAll("k", 1.5, -2.5, 0);
        List<?> keys = (List<?>) c.command("KEYS",
            "wp1:" + (spec.isExact() ? "x" : "s") + ":{" + name + ":k:" + name.length() + "}*");
        assertThat(keys).as("%s: two keys each (histogram: hash and aggregate)", spec)
            .hasSize(2);
        for (Object key : keys) {
          assertThat(asLong(c.command("PTTL", (String) key))).as("%s %s", spec, key)
              .isPositive().isLessThanOrEqualTo(spec.expiryMillis());
        }
      }
    }
  }

  @Test
  void stats_summariesDoNotExtendTheExpiry() {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = Windowpane.using(TestEngines.builder(redis).clock(clock)
        .expiryGrace(Duration.ZERO).build()); RespClient c = redis.client()) {
      WindowStats histogram = wp.stats("read-h", StatsSpec.histogram(MINUTE, 12));
      WindowStats exact = wp.stats("read-x", StatsSpec.exact(MINUTE));
      histogram.record("k", 3);
      exact.record("k", 3);
      String hash = histogramKey("read-h", "k", 60_000, 12);
      String meta = "wp1:x:{read-x:k:6}:x60000:m";
      long aggregateTtl = asLong(c.command("PTTL", hash + ":a"));
      long hashExpiry = asLong(c.command("HGET", hash, "e"));
      long metaExpiry = asLong(c.command("HGET", meta, "e"));
      clock.advance(30_000);
      assertThat(histogram.summary("k").count()).isEqualTo(1);
      assertThat(exact.summary("k").count()).isEqualTo(1);
      assertThat(asLong(c.command("HGET", hash, "e"))).isEqualTo(hashExpiry);
      assertThat(asLong(c.command("HGET", meta, "e"))).isEqualTo(metaExpiry);
      assertThat(asLong(c.command("PTTL", hash))).as("no PEXPIRE on a summary")
          .isLessThanOrEqualTo(hashExpiry - (clock.millis() - 30_000));
      assertThat(asLong(c.command("PTTL", hash + ":a"))).isLessThanOrEqualTo(aggregateTtl);
      assertThat(asLong(c.command("PTTL", meta)))
          .isLessThanOrEqualTo(metaExpiry - (clock.millis() - 30_000));
    }
  }

  /** A hash's fields as a map: field to value. */
  private static Map<String, String> fields(RespClient c, String hash) {
    List<?> all = (List<?>) c.command("HGETALL", hash);
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i < all.size(); i += 2) {
      out.put((String) all.get(i), (String) all.get(i + 1));
    }
    return out;
  }

  @Test
  void histogram_aPaneLeavingTheWindowTakesEveryFieldWithIt_andTheAggregateFollows() {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    long grace = Duration.ofMinutes(10).toMillis();
    try (Windowpane wp = Windowpane.using(TestEngines.builder(redis).clock(clock)
        .expiryGrace(Duration.ofMillis(grace)).build()); RespClient c = redis.client()) {
      int panes = 6; // r = 1 s
      StatsSpec spec = StatsSpec.histogram(Duration.ofSeconds(6), panes);
      WindowStats stats = wp.stats("departures", spec);
      String hash = histogramKey("departures", "k", 6_000, panes);
      String aggregate = hash + ":a";
      LogBuckets buckets = spec.buckets();
      Map<Long, Map<Integer, Long>> countsByPane = new HashMap<>();
      Random random = new Random(11);
      long newest = Long.MIN_VALUE;
      long movedAt = 0; // the clock when the head last moved on (and both TTLs were set)
      for (int step = 0; step < 600; step++) {
        int jump = random.nextInt(40);
        clock.advance(jump == 0 ? 7_000 : jump < 4 ? 2_000 + random.nextInt(2_000)
            : random.nextInt(300)); // past a whole lap, a few panes at once, or within a pane
        double[] values = new double[1 + random.nextInt(40)];
        for (int i = 0; i < values.length; i++) { // nine decades either side: many buckets
          values[i] = (random.nextInt(4) == 0 ? -1 : 1) * Math.exp(random.nextGaussian() * 5);
        }
        if (random.nextInt(3) == 0) {
          values = new double[] {values[0]}; // one bucket: the aggregate's HINCRBY
        }
        stats.recordAll("k", values);
        long pane = Math.floorDiv(clock.millis(), 1000L);
        if (pane > newest) {
          newest = pane;
          movedAt = clock.millis();
        }
        Map<Integer, Long> counts = countsByPane.computeIfAbsent(pane, p -> new HashMap<>());
        for (double v : values) {
          counts.merge(buckets.key(v), 1L, Long::sum);
        }
        long expected = 3; // v, e, h
        Map<String, String> sum = new HashMap<>(); // over the panes stored: (newest - P, newest]
        for (Map.Entry<Long, Map<Integer, Long>> e : countsByPane.entrySet()) {
          if (e.getKey() > newest - panes) {
            expected += 6 + e.getValue().size(); // n, s, e, min, max, k and one per bucket
            e.getValue().forEach((key, n) -> sum.merge(Integer.toString(key), Long.toString(n),
                (x, y) -> Long.toString(Long.parseLong(x) + Long.parseLong(y))));
          }
        }
        assertThat(asLong(c.command("HLEN", hash))).as("fields after step %d", step)
            .isEqualTo(expected);
        assertThat(fields(c, aggregate)).as("aggregate after step %d", step).isEqualTo(sum);
        // both keys expire when the newest pane leaves, plus the grace: set when the head moved
        // on, counted down in real time since (a few ms per step)
        long ttl = (newest + panes) * 1000 - movedAt + grace;
        long hashTtl = asLong(c.command("PTTL", hash));
        assertThat(hashTtl).as("hash TTL after step %d", step).isBetween(ttl - 10_000, ttl);
        // the aggregate's: the same PEXPIRE in the same call (a ms apart at most, as each reads
        // the clock), read a moment later
        assertThat(asLong(c.command("PTTL", aggregate))).as("aggregate TTL after step %d", step)
            .isBetween(hashTtl - 100, hashTtl + 5);
      }
    }
  }

  @Test
  void histogram_anAggregateWithoutItsHash_isReplacedNotAddedTo() {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = Windowpane.using(TestEngines.builder(redis).clock(clock)
        .build()); RespClient c = redis.client()) {
      String hash = histogramKey("stray", "k", 60_000, 12);
      c.command("HSET", hash + ":a", "1179", "40", "7", "2"); // left alone: no hash, no TTL
      WindowStats stats = wp.stats("stray", StatsSpec.histogram(MINUTE, 12));
      assertThat(stats.summary("k").isEmpty()).as("no hash: absent").isTrue();
      stats.record("k", 42.5);
      assertThat(stats.summary("k").count()).isEqualTo(1);
      assertThat(fields(c, hash + ":a")).hasSize(1).containsValue("1");
      assertThat(asLong(c.command("PTTL", hash + ":a"))).isPositive();
    }
  }

  @Test
  void histogram_anAggregateChangedBySomethingElse_isAnErrorNotAWrongAnswer() {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = Windowpane.using(TestEngines.builder(redis).clock(clock)
        .build()); RespClient c = redis.client()) {
      String hash = histogramKey("meddled", "k", 60_000, 12);
      WindowStats stats = wp.stats("meddled", StatsSpec.histogram(MINUTE, 12));
      stats.recordAll("k", 42.5, 17, 17);
      c.command("HINCRBY", hash + ":a", "1179", "5");
      assertThatThrownBy(() -> stats.summary("k"))
          .isInstanceOf(io.windowpane.WindowpaneException.class)
          .hasMessageContaining("WPFORMAT")
          .hasMessageContaining("adding up to 8 where " + hash + " holds 3 values");
      c.command("DEL", hash + ":a");
      assertThatThrownBy(() -> stats.summary("k")).hasMessageContaining("WPFORMAT");
    }
  }

  @Test
  void exact_aRecordPastMaxValues_failsWithWpfullAndChangesNothing() throws Exception {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = Windowpane.using(TestEngines.builder(redis).clock(clock)
        .expiryGrace(Duration.ZERO).build()); RespClient c = redis.client()) {
      WindowStats stats = wp.stats("full", StatsSpec.exact(MINUTE).withMaxValues(5));
      String set = "wp1:x:{full:k:4}:x60000";
      String meta = set + ":m";
      stats.recordAll("k", 1, 2, 3, 4);
      Object values = c.command("ZRANGE", set, "0", "-1", "WITHSCORES");
      Object state = c.command("HGETALL", meta);
      long ttl = asLong(c.command("PTTL", set));
      clock.advance(10);
      assertThatThrownBy(() -> stats.recordAll("k", 5, 6))
          .isInstanceOf(CapacityExceededException.class)
          .hasMessageContaining("holds 4 values and may hold at most 5 (maxValues)");
      assertThat(stats.recordAllAsync("k", 5, 6).toCompletableFuture())
          .failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(CapacityExceededException.class);
      assertThat(c.command("ZRANGE", set, "0", "-1", "WITHSCORES")).isEqualTo(values);
      assertThat(c.command("HGETALL", meta)).isEqualTo(state);
      assertThat(asLong(c.command("PTTL", set))).isLessThanOrEqualTo(ttl);
      stats.record("k", 5);
      assertThat(asLong(c.command("ZCARD", set))).isEqualTo(5);
      clock.advance(59_990); // the first four left (the fifth, 10 ms younger, stays)
      stats.recordAll("k", 6, 7, 8, 9);
      assertThat(asLong(c.command("ZCARD", set))).isEqualTo(5);
      assertThat(stats.summary("k").sum()).isEqualTo(35);
    }
  }

  @Test
  void stats_aKeyInAnotherFormat_isAnErrorNotAWrongAnswer() {
    try (Windowpane wp = Windowpane.using(TestEngines.builder(redis).build());
        RespClient c = redis.client()) {
      String hash = histogramKey("fmt-h", "k", 1000, 10);
      // a layout format this library does not know
      c.command("HSET", hash, "v", "9", "e", "99999999999999", "h", "0");
      c.command("HSET", "wp1:x:{fmt-x:k:5}:x1000:m", "v", "9");
      WindowStats histogram = wp.stats("fmt-h", StatsSpec.histogram(Duration.ofSeconds(1), 10));
      WindowStats exact = wp.stats("fmt-x", StatsSpec.exact(Duration.ofSeconds(1)));
      for (WindowStats stats : List.of(histogram, exact)) {
        assertThatThrownBy(() -> stats.record("k", 1))
            .isInstanceOf(io.windowpane.WindowpaneException.class)
            .hasMessageContaining("WPFORMAT");
        assertThatThrownBy(() -> stats.summary("k"))
            .isInstanceOf(io.windowpane.WindowpaneException.class)
            .hasMessageContaining("WPFORMAT");
      }
      assertThat(asLong(c.command("HLEN", hash))).as("nothing written").isEqualTo(3);
      assertThat(asLong(c.command("EXISTS", hash + ":a"))).isZero();
    }
  }
}
