package io.windowpane.bench.redis;

import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.windowpane.Backoff;
import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.MillisClock;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.WindowpaneException;
import io.windowpane.WindowpaneTimeoutException;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Engine;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;

/*
 * Design note. Lock mode: counters and limiters as articles on Redis rate limiting build them,
 * behind windowpane's own API, so that the benchmarks can put that design beside the engine's
 * functions (run-lockmode-benchmarks.sh, docs/benchmarks.md). It is not part of the product.
 *
 * Per operation: take the key's lock (SET NX PX with a random token; a caller that finds it
 * taken retries after a jittered exponential backoff, 1 ms doubling to 20 ms, until its wait
 * runs out, then fails with WindowpaneTimeoutException), read the time (the server's TIME, or a
 * given clock), ZREMRANGEBYSCORE and ZRANGEBYSCORE WITHSCORES sent back to back to read the
 * events still in reach (one sorted set per logical key, scored by time, members
 * <id>.<sequence>:<n>), decide in Java (SortedSetWindows, the window model's definitions),
 * record an allowed request with ZADD and PEXPIRE sent back to back, and release the lock with a
 * Lua compare-and-delete. That is 5 round trips and a lock per decision where a function call
 * takes one round trip and no lock. The lock lives 5 s, long beside the few round trips an
 * operation takes, and bounds how long a dead holder blocks the key. Keys: the set
 * wp1:z:{<kind>:<name>:<key>} and its lock wp1:l:{<kind>:<name>:<key>} share a hash slot.
 *
 * Counters and limiters only: statistics windows, leases, replays and top keys are the
 * functions' business and are refused here. Blocking calls on one multiplexed connection.
 */

/**
 * A Redis engine in lock mode (see the design note): counters and limiters only. Thread-safe.
 * For the benchmarks; the product's Redis engine runs every operation as one function call.
 */
final class LockModeEngine implements Engine {

  /** How long a holder keeps the lock if it dies mid-operation. */
  static final long LOCK_TTL_MILLIS = 5_000;

  private static final Backoff BACKOFF =
      Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(20)).withFullJitter();
  private static final String RELEASE = Scripts.text("compare-and-delete.lua");
  private static final String ID = Long.toHexString(ThreadLocalRandom.current().nextLong());
  private static final AtomicLong SEQUENCE = new AtomicLong();

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisAsyncCommands<String, String> redis;
  private final MillisClock clock; // null: the server's TIME
  private final long waitNanos;
  private final long graceMillis;
  private volatile String releaseSha;

  /**
   * An engine on the server at {@code uri}, on the server's time.
   *
   * @param wait how long a caller waits for a key's lock before it fails
   */
  LockModeEngine(String uri, Duration wait) {
    this(uri, wait, null, 0);
  }

  /**
   * An engine whose time is {@code clock}'s (tests), keeping keys {@code graceMillis} longer
   * than their windows need, so that a clock standing still does not outlive them.
   */
  LockModeEngine(String uri, Duration wait, MillisClock clock, long graceMillis) {
    this.client = LettuceClients.create(uri);
    this.connection = client.connect();
    this.redis = connection.async();
    this.clock = clock;
    this.waitNanos = wait.toNanos();
    this.graceMillis = graceMillis;
    this.releaseSha = await(redis.scriptLoad(RELEASE), "SCRIPT LOAD");
  }

  @Override
  public String name() {
    return "redis-lockmode";
  }

  @Override
  public CounterStore counterStore(String name, WindowSpec spec) {
    return new Counter(prefix("c", name), spec);
  }

  @Override
  public LimiterStore limiterStore(String name, Quota quota) {
    return new Limiter(prefix("r", name), quota);
  }

  /**
   * The start of a store's Redis keys: the name's length comes first, so that limiter "a" with
   * key "b:c" and limiter "a:b" with key "c" never share a key.
   */
  static String prefix(String kind, String name) {
    return kind + ":" + name.length() + ":" + name + ":";
  }

  @Override
  public StatsStore statsStore(String name, StatsSpec spec) {
    throw new UnsupportedOperationException("lock mode has counters and limiters only");
  }

  @Override
  public void close() {
    connection.close();
    LettuceClients.shutdown(client);
  }

  /** Runs {@code work} with the current time while holding the lock of {@code name}. */
  private <T> T locked(String name, LongFunction<T> work) {
    String lock = "wp1:l:{" + name + "}";
    String token = Long.toHexString(ThreadLocalRandom.current().nextLong())
        + Long.toHexString(System.nanoTime());
    long deadline = System.nanoTime() + waitNanos;
    SetArgs args = SetArgs.Builder.nx().px(LOCK_TTL_MILLIS);
    for (int retry = 0; !"OK".equals(await(redis.set(lock, token, args), "lock")); retry++) {
      if (System.nanoTime() - deadline >= 0) {
        throw new WindowpaneTimeoutException("lock mode: the lock of '" + name
            + "' stayed taken for " + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms", null);
      }
      long pause = BACKOFF.delayMillis(retry, ThreadLocalRandom.current().nextDouble());
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pause));
    }
    try {
      return work.apply(now());
    } finally {
      release(lock, token);
    }
  }

  private void release(String lock, String token) {
    String[] keys = {lock};
    try {
      await(redis.evalsha(releaseSha, ScriptOutputType.INTEGER, keys, token), "unlock");
    } catch (WindowpaneException e) {
      if (!(e.getCause() instanceof RedisNoScriptException)) {
        throw e;
      }
      releaseSha = await(redis.scriptLoad(RELEASE), "SCRIPT LOAD");
      await(redis.evalsha(releaseSha, ScriptOutputType.INTEGER, keys, token), "unlock");
    }
  }

  private long now() {
    if (clock != null) {
      return clock.millis();
    }
    List<String> time = await(redis.time(), "TIME");
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  private static String setKey(String name) {
    return "wp1:z:{" + name + "}";
  }

  /** Drops what no window reaches any more and reads the rest: two commands, one round trip. */
  private SortedSetWindows read(String name, long now, long horizon) {
    String key = setKey(name);
    double drop = now - horizon;
    RedisFuture<Long> trimmed =
        redis.zremrangebyscore(key, Range.create(Double.NEGATIVE_INFINITY, drop));
    RedisFuture<List<ScoredValue<String>>> read = redis.zrangebyscoreWithScores(key,
        Range.from(Range.Boundary.excluding(drop), Range.Boundary.unbounded()));
    await(trimmed, "lock mode read");
    return new SortedSetWindows(await(read, "lock mode read"));
  }

  /** Records {@code n} events at {@code now}: ZADD and PEXPIRE, one round trip. */
  private void write(String name, long now, long n, long horizon) {
    String key = setKey(name);
    RedisFuture<Long> added =
        redis.zadd(key, (double) now, ID + '.' + SEQUENCE.incrementAndGet() + ':' + n);
    RedisFuture<Boolean> expiring = redis.pexpire(key, horizon + graceMillis + 1);
    await(added, "lock mode write");
    await(expiring, "lock mode write");
  }

  /** Whether any event of the key is still within reach now (read without the lock). */
  private boolean holds(String name, long horizon) {
    return await(redis.zcount(setKey(name), Range.from(
        Range.Boundary.excluding((double) (now() - horizon)), Range.Boundary.unbounded())),
        "holdsState") > 0;
  }

  private static <T> T await(RedisFuture<T> future, String what) {
    try {
      return future.get(LettuceClients.COMMAND_TIMEOUT.toMillis() + 1_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WindowpaneException(what + " interrupted", e);
    } catch (ExecutionException e) {
      throw new WindowpaneException(what + " failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new WindowpaneTimeoutException(what + " timed out", e);
    }
  }

  /** A counter: add and count under the key's lock. */
  private final class Counter implements CounterStore {
    private final String prefix;
    private final WindowSpec spec;
    private final long horizon;

    Counter(String prefix, WindowSpec spec) {
      this.prefix = prefix;
      this.spec = spec;
      this.horizon = SortedSetWindows.horizon(spec);
    }

    @Override
    public long add(String key, long n) {
      String name = prefix + key;
      return locked(name, now -> {
        long before = read(name, now, horizon).count(spec, now);
        write(name, now, n, horizon);
        return before + n;
      });
    }

    @Override
    public long count(String key) {
      String name = prefix + key;
      return locked(name, now -> read(name, now, horizon).count(spec, now));
    }

    @Override
    public boolean holdsState(String key) {
      return holds(prefix + key, horizon);
    }
  }

  /** A limiter: every limit of the quota decided from one sorted set under the key's lock. */
  private final class Limiter implements LimiterStore {
    private final String prefix;
    private final List<Limit> limits;
    private final long horizon;

    Limiter(String prefix, Quota quota) {
      this.prefix = prefix;
      this.limits = quota.limits();
      long h = 0;
      for (Limit limit : limits) {
        h = Math.max(h, SortedSetWindows.horizon(limit.window()));
      }
      this.horizon = h;
    }

    @Override
    public Decision tryAcquire(String key, long permits) {
      String name = prefix + key;
      return locked(name, now -> {
        SortedSetWindows window = read(name, now, horizon);
        long room = Long.MAX_VALUE; // the most that fits every limit
        for (Limit limit : limits) {
          room = Math.min(room, limit.permits() - window.count(limit.window(), now));
        }
        if (room >= permits) {
          write(name, now, permits, horizon);
          return Decision.allowed(room - permits);
        }
        long wait = -1;
        Limit by = null; // the limit that must wait longest
        for (Limit limit : limits) {
          long w = window.waitMillis(limit, now, permits);
          if (w > wait) {
            wait = w;
            by = limit;
          }
        }
        return Decision.denied(Math.max(0, room), by, wait);
      });
    }

    @Override
    public boolean holdsState(String key) {
      return holds(prefix + key, horizon);
    }
  }
}
