package io.windowpane.redis.internal;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/*
 * Design note. Lock mode (RedisEngine.Builder.lockMode): counters and limiters as the articles
 * build them, kept so that users of that design can migrate and measure it. Per operation, under
 * the key's Redis lock (LockGuard): ZREMRANGEBYSCORE and ZRANGEBYSCORE WITHSCORES read the events
 * still in reach (one sorted set per logical key, scored by time), Java decides
 * (SortedSetWindows), and an allowed request is recorded with ZADD and PEXPIRE; then the lock is
 * released. That is 4 to 5 round trips and a lock per decision where the functions take one
 * round trip and no lock. Keys: the set wp1:z:{<kind>:<name>:<key>} and its lock
 * wp1:l:{<kind>:<name>:<key>} share a hash slot. Statistics windows stay on the functions.
 *
 * A replay (a failover chain's, Engine.replays()) takes the lock too, and adds the events at
 * min(at, now) with ZADD NX under the member r.<replayId>:<n>: the member is its own idempotency
 * marker, for as long as the set keeps it (until no window reaches its time, when a repeat is
 * dropped anyway), and one command both checks and records. The count is the part after the last
 * ':' as for every member; "r." cannot begin a recorded member (hex id, then '.').
 *
 * A lease (LimiterStore.lease) takes the lock like an acquire and records its grant as one
 * event; a release adds the member g.<releaseId>:-<m> at the grant's time (ZADD NX), a negative
 * count that cancels m of the permits recorded at that time in every window's count, the
 * member again its own marker. m never exceeds what the set holds at that time, so no time's
 * sum goes below 0 and counts stay monotone as events leave (retryAfter's search relies on it).
 */
final class LockModeStores {

  private static final String ID = Long.toHexString(ThreadLocalRandom.current().nextLong());
  private static final AtomicLong SEQUENCE = new AtomicLong();

  private final RedisSeam seam;
  private final LockGuard guard;
  private final long guardMillis;

  LockModeStores(RedisSeam seam, RedisLockStore locks, TimeArg time, Duration wait,
      long guardMillis) {
    this.seam = seam;
    this.guard = new LockGuard(seam, locks, time, wait);
    this.guardMillis = guardMillis;
  }

  CounterStore counterStore(String name, WindowSpec spec) {
    return new Counter("c:" + name + ":", spec);
  }

  LimiterStore limiterStore(String name, Quota quota) {
    return new Limiter("r:" + name + ":", quota);
  }

  private static String setKey(String lockName) {
    return "wp1:z:{" + lockName + "}";
  }

  private static String member(long n) {
    return ID + '.' + SEQUENCE.incrementAndGet() + ':' + n;
  }

  private CompletableFuture<SortedSetWindows> read(String lockName, long now, long horizon) {
    return Calls.translated(seam.zTrimAndRead(setKey(lockName), now - horizon), "lock mode read")
        .thenApply(SortedSetWindows::new);
  }

  private CompletableFuture<Void> record(String lockName, long now, long n, long horizon) {
    return Calls.translated(seam.zAddAndExpire(setKey(lockName), now, member(n),
        horizon + guard.graceMillis() + 1), "lock mode write");
  }

  /**
   * Records {@code n} events at {@code min(atMillis, now)} under the key's lock, without deciding,
   * unless none of {@code windows} still looks at that time; the set's ttl follows its newest
   * event as a record's does.
   */
  private CompletionStage<Void> replay(String lockName, List<WindowSpec> windows, long horizon,
      long n, long atMillis, String replayId) {
    CompletableFuture<Void> refused = Replays.refuseId(replayId);
    if (refused != null) {
      return refused;
    }
    return guard.run(lockName, now -> {
      long t = Math.min(atMillis, now);
      boolean held = false;
      for (WindowSpec spec : windows) {
        held |= SortedSetWindows.holds(spec, t, now);
      }
      if (!held) {
        return CompletableFuture.<Void>completedFuture(null);
      }
      return read(lockName, now, horizon).thenCompose(window -> {
        long ttl = Math.max(t, window.newest()) + horizon + guard.graceMillis() + 1 - now;
        return Calls.translated(seam.zAddIfAbsentAndExpire(setKey(lockName), t,
            "r." + replayId + ':' + n, ttl), "lock mode replay").thenApply(added -> (Void) null);
      });
    });
  }

  /**
   * Gives back up to {@code n} permits of a grant recorded at {@code atMillis}, under the key's
   * lock, unless no window still looks at that time: one member {@code g.<releaseId>:-m} at
   * score {@code atMillis}, m the smallest of n and the permits the set holds at that score, so
   * every count that includes the grant drops by m and no time's sum goes below 0. The member
   * is its own idempotency marker: a release whose id the set still holds changes nothing. With
   * nothing at that score (m = 0) nothing is written, so a key without state gets none.
   */
  private CompletionStage<Void> release(String lockName, List<WindowSpec> windows, long horizon,
      long n, long atMillis, String releaseId) {
    CompletableFuture<Void> refused = Replays.refuseId(releaseId, "releaseId");
    if (refused != null) {
      return refused;
    }
    String marker = "g." + releaseId + ':';
    return guard.run(lockName, now -> {
      boolean held = false;
      for (WindowSpec spec : windows) {
        held |= SortedSetWindows.holds(spec, atMillis, now);
      }
      if (!held) {
        return CompletableFuture.<Void>completedFuture(null);
      }
      return Calls.translated(seam.zTrimAndRead(setKey(lockName), now - horizon),
          "lock mode read").thenCompose(events -> {
            for (RedisSeam.Scored e : events) {
              if (e.member().startsWith(marker)) {
                return CompletableFuture.<Void>completedFuture(null); // released already
              }
            }
            SortedSetWindows window = new SortedSetWindows(events);
            long m = Math.min(n, window.at(atMillis));
            if (m == 0) { // nothing there: no write, so a key without state gets none
              return CompletableFuture.<Void>completedFuture(null);
            }
            long ttl = Math.max(atMillis, window.newest()) + horizon + guard.graceMillis() + 1
                - now;
            return Calls.translated(seam.zAddIfAbsentAndExpire(setKey(lockName), atMillis,
                marker + (-m), ttl), "lock mode release").thenApply(added -> (Void) null);
          });
    });
  }

  /**
   * Whether any event of the key is still within reach now: state expires logically, whatever
   * the key's physical time to live (which carries the grace). Read without the lock.
   */
  private boolean holds(String lockName, long horizon) {
    return Calls.await(guard.now().thenCompose(now -> Calls.translated(
        seam.zCountAbove(setKey(lockName), now - horizon), "holdsState")), guardMillis,
        "holdsState") > 0;
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
    public CompletionStage<Long> addAsync(String key, long n) {
      String lock = prefix + key;
      // qualified: CounterStore has a record(key, n) of its own, which would shadow this one
      return guard.run(lock, now -> read(lock, now, horizon).thenCompose(window ->
          LockModeStores.this.record(lock, now, n, horizon)
              .thenApply(v -> window.count(spec, now) + n)));
    }

    @Override
    public CompletionStage<Long> countAsync(String key) {
      String lock = prefix + key;
      return guard.run(lock, now -> read(lock, now, horizon)
          .thenApply(window -> window.count(spec, now)));
    }

    @Override
    public long add(String key, long n) {
      return Calls.await(addAsync(key, n).toCompletableFuture(), guardMillis, "add");
    }

    @Override
    public long count(String key) {
      return Calls.await(countAsync(key).toCompletableFuture(), guardMillis, "count");
    }

    @Override
    public boolean holdsState(String key) {
      return holds(prefix + key, horizon);
    }

    @Override
    public CompletionStage<Void> replayAsync(String key, long n, long atMillis,
        String replayId) {
      return replay(prefix + key, List.of(spec), horizon, n, atMillis, replayId);
    }
  }

  /** A limiter: every limit of the quota decided from one sorted set under the key's lock. */
  private final class Limiter implements LimiterStore {
    private final String prefix;
    private final List<Limit> limits;
    private final List<WindowSpec> windows;
    private final long horizon;

    Limiter(String prefix, Quota quota) {
      this.prefix = prefix;
      this.limits = quota.limits();
      this.windows = limits.stream().map(Limit::window).toList();
      long h = 0;
      for (Limit limit : limits) {
        h = Math.max(h, SortedSetWindows.horizon(limit.window()));
      }
      this.horizon = h;
    }

    @Override
    public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
      String lock = prefix + key;
      return guard.run(lock, now -> read(lock, now, horizon).thenCompose(window -> {
        long room = room(window, now);
        if (room >= permits) {
          long left = room - permits;
          return record(lock, now, permits, horizon).thenApply(v -> Decision.allowed(left));
        }
        return CompletableFuture.completedFuture(denial(window, now, permits, room));
      }));
    }

    /** The smallest room left over the limits at {@code now}: the most that fits them all. */
    private long room(SortedSetWindows window, long now) {
      long room = Long.MAX_VALUE;
      for (Limit limit : limits) {
        room = Math.min(room, limit.permits() - window.count(limit.window(), now));
      }
      return room;
    }

    /** The denial of {@code permits} that do not fit: the limit that must wait longest. */
    private Decision denial(SortedSetWindows window, long now, long permits, long room) {
      long wait = -1;
      Limit by = null;
      for (Limit limit : limits) {
        long w = window.waitMillis(limit, now, permits);
        if (w > wait) {
          wait = w;
          by = limit;
        }
      }
      return Decision.denied(Math.max(0, room), by, wait);
    }

    /**
     * Under the key's lock, as the functions' wp_lease: the largest grant up to
     * {@code maxPermits} that fits every limit, recorded as one event of that many permits.
     */
    @Override
    public CompletionStage<Optional<Grant>> leaseAsync(String key, long minPermits,
        long maxPermits) {
      String lock = prefix + key;
      return guard.run(lock, now -> read(lock, now, horizon).thenCompose(window -> {
        long room = room(window, now);
        if (room >= minPermits) {
          long granted = Math.min(room, maxPermits);
          Decision allowed = Decision.allowed(room - granted);
          return record(lock, now, granted, horizon)
              .thenApply(v -> Optional.of(new Grant(granted, now, allowed)));
        }
        return CompletableFuture.completedFuture(Optional.of(
            new Grant(0, now, denial(window, now, minPermits, room))));
      }));
    }

    @Override
    public Optional<Grant> lease(String key, long minPermits, long maxPermits) {
      return Calls.await(leaseAsync(key, minPermits, maxPermits).toCompletableFuture(),
          guardMillis, "lease");
    }

    @Override
    public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
        String releaseId) {
      return release(prefix + key, windows, horizon, permits, atMillis, releaseId);
    }

    @Override
    public Decision tryAcquire(String key, long permits) {
      return Calls.await(tryAcquireAsync(key, permits).toCompletableFuture(), guardMillis,
          "tryAcquire");
    }

    @Override
    public boolean holdsState(String key) {
      return holds(prefix + key, horizon);
    }

    @Override
    public CompletionStage<Void> replayAsync(String key, long permits, long atMillis,
        String replayId) {
      return replay(prefix + key, windows, horizon, permits, atMillis, replayId);
    }
  }
}
