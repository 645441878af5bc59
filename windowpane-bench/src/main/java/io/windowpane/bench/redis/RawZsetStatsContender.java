package io.windowpane.bench.redis;

import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.windowpane.ManualClock;
import io.windowpane.bench.stats.LatencyValues;
import io.windowpane.bench.stats.RawSummary;
import io.windowpane.bench.stats.WindowTraffic;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/*
 * Design note: the statistics design that articles publish for Redis, without its lock. Every raw value of the
 * window is a member of one sorted set per key, scored by its time (ms); a member must be unique,
 * so it is "<value>:<sequence>" (e.g. "23.457:81234"; an article's UUID would make it longer).
 * On every request the client
 *
 *   ZADD key now member                       the new value
 *   ZREMRANGEBYSCORE key -inf (now - W)       drop what left the window
 *   ZRANGEBYSCORE key (now - W) now           fetch the whole window
 *
 * and recomputes count, sum, mean, min, max and p99 from the members (parse, copy into a
 * double[], sort: RawSummary). The article guards this with a SET NX lock, so its three commands
 * and the recompute are one critical section; here there is no lock, so the comparison is about
 * data movement only: the three commands go out back to back on one multiplexed connection
 * (pipelined: one round trip, not three; other callers' commands may interleave, which a lock
 * would prevent) and the caller waits for the three replies. No PEXPIRE (the article sets one; it
 * would add a cheap command per call). Time is the same ManualClock traffic as windowpane's.
 *
 * The append form (record only: ZADD and ZREMRANGEBYSCORE) is the cheapest a raw design can
 * record; it is reported for reference, since the design's unit of work is the request.
 */

/**
 * The raw sorted-set design: every value stored, the whole window fetched and recomputed in the
 * client on each request (or, in the append form, only stored). Thread-safe; one multiplexed
 * Lettuce connection; every command times out after {@code StatsSettings.timeout}.
 */
final class RawZsetStatsContender implements StatsContender {

  /** Members per ZADD when prefilling. */
  private static final int PREFILL_CHUNK = 1000;

  private final StatsSettings settings;
  private final boolean request;
  private final ManualClock clock = ManualClock.at(WindowTraffic.START_MILLIS);
  private final LatencyValues values = LatencyValues.seeded(11);
  private final AtomicLong sequence = new AtomicLong();
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisAsyncCommands<String, String> commands;
  private WindowTraffic.Shared ticker;
  private String[] keys;
  private volatile double lastP99 = Double.NaN;

  RawZsetStatsContender(StatsSettings settings, boolean request) {
    this.settings = settings;
    this.request = request;
    RedisURI uri = RedisURI.create(settings.redisUri());
    uri.setTimeout(settings.timeout());
    this.client = RedisClient.create(uri);
    this.connection = client.connect();
    this.commands = connection.async();
  }

  /** The member for {@code value}: unique by its sequence number. */
  static String member(double value, long sequence) {
    return value + ":" + sequence;
  }

  /** The value a member carries. */
  static double value(String member) {
    return Double.parseDouble(member.substring(0, member.indexOf(':')));
  }

  @Override
  public void prepare(String[] keys) {
    this.keys = Namespaced.keys(settings.namespace() + ":", keys);
    WindowTraffic traffic = new WindowTraffic(settings.windowMillis(), settings.population(),
        keys.length);
    List<RedisFuture<?>> inFlight = new ArrayList<>();
    try {
      traffic.prefill(clock, settings.windows(),
          WindowTraffic.prefillBatches(keys.length), values,
          new WindowTraffic.Batch() {
            @Override
            public void accept(int key, long timeMillis, double[] batch) {
              String k = RawZsetStatsContender.this.keys[key];
              for (int from = 0; from < batch.length; from += PREFILL_CHUNK) {
                int n = Math.min(PREFILL_CHUNK, batch.length - from);
                @SuppressWarnings({"unchecked", "rawtypes"}) // generic array for Lettuce's varargs
                ScoredValue<String>[] members = new ScoredValue[n];
                for (int i = 0; i < n; i++) {
                  members[i] = ScoredValue.just(timeMillis,
                      member(batch[from + i], sequence.getAndIncrement()));
                }
                inFlight.add(commands.zadd(k, members));
              }
              inFlight.add(commands.zremrangebyscore(k, expired(timeMillis)));
            }

            @Override
            public void endOfBatch() throws Exception {
              for (RedisFuture<?> f : inFlight) {
                await(f);
              }
              inFlight.clear();
            }
          });
    } catch (Exception e) {
      throw new IllegalStateException("prefill failed: " + e, e);
    }
    this.ticker = traffic.shared(clock);
  }

  private Range<Double> expired(long now) {
    return Range.create(Double.NEGATIVE_INFINITY, (double) (now - settings.windowMillis()));
  }

  private Range<Double> live(long now) {
    return Range.from(Range.Boundary.excluding((double) (now - settings.windowMillis())),
        Range.Boundary.including((double) now));
  }

  @Override
  public Outcome decide(int keyIndex) throws Exception {
    long e = ticker.next();
    long now = clock.millis();
    String key = keys[keyIndex];
    RedisFuture<Long> added = commands.zadd(key, (double) now,
        member(values.at(e), sequence.getAndIncrement()));
    RedisFuture<Long> dropped = commands.zremrangebyscore(key, expired(now));
    if (!request) {
      await(added);
      await(dropped);
      return Outcome.COUNTED;
    }
    RedisFuture<List<String>> window = commands.zrangebyscore(key, live(now));
    await(added);
    await(dropped);
    List<String> members = await(window);
    double[] live = new double[members.size()];
    for (int i = 0; i < live.length; i++) {
      live[i] = value(members.get(i));
    }
    lastP99 = RawSummary.recompute(live).quantile(0.99);
    return Outcome.COUNTED;
  }

  private <T> T await(RedisFuture<T> future) throws Exception {
    try {
      return future.get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } catch (TimeoutException e) {
      future.cancel(false);
      throw e;
    }
  }

  @Override
  public long population(int keyIndex) throws Exception {
    return await(commands.zcount(keys[keyIndex], live(clock.millis())));
  }

  @Override
  public double lastP99() {
    return lastP99;
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
