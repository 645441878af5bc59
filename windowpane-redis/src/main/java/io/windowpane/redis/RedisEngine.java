package io.windowpane.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.StaticCredentialsProvider;
import io.windowpane.GroupDecision;
import io.windowpane.MemoryStatus;
import io.windowpane.MillisClock;
import io.windowpane.redis.internal.Calls;
import io.windowpane.redis.internal.FunctionLibrary;
import io.windowpane.redis.internal.GuardedSeam;
import io.windowpane.redis.internal.LettuceSeam;
import io.windowpane.redis.internal.MemoryGuard;
import io.windowpane.redis.internal.RedisSeam;
import io.windowpane.redis.internal.RedisStores;
import io.windowpane.redis.internal.SkewCorrectedClock;
import io.windowpane.redis.internal.TimeArg;
import io.windowpane.spi.DeferredEngine;
import io.windowpane.spi.GroupRequest;
import io.windowpane.spi.RemoteEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The Redis engine: every operation is ONE round trip to ONE atomic server-side function of the
 * versioned {@code windowpane} library, with no client-side lock.
 *
 * <pre>{@code
 * Windowpane wp = Windowpane.using(RedisEngine.builder()
 *     .uri("redis://localhost:6379")
 *     .build());
 * }</pre>
 *
 * <p>Guarantees. Each call is atomic on the server: a decision reads, decides and records in one
 * step, so concurrent callers on any number of machines never exceed a limit and never lose an
 * event. A multi-limit quota is decided in the same call; a denied request records nothing.
 * Every key expires by itself within {@code W + r} of its last recorded event. Statistics
 * windows merge their panes on the server: a summary moves the merged buckets, not the values
 * (an exact window's summary moves its values).
 *
 * <p>Time. By default the functions read the server's clock ({@code TIME}), so client clocks do
 * not matter. {@link Builder#clientTime()} passes the client's clock corrected by a measured
 * offset instead (for managed Redis that forbids {@code TIME} in scripts);
 * {@link Builder#clock(MillisClock)} passes a given clock as is (tests).
 *
 * <p>Failures. Backend failures surface as {@link io.windowpane.WindowpaneException} (a timeout
 * as {@link io.windowpane.WindowpaneTimeoutException}) within the configured timeout; commands
 * are not buffered while the connection is down: they fail at once. The connection comes back by
 * itself, with pauses between attempts doubling from 1 ms to at most 500 ms (Lettuce's default
 * goes up to 30 s), so calls work again within about half a second of Redis answering after a
 * restart (the library is reloaded by the first call that misses it). Thread-safe: one
 * multiplexed connection serves every thread.
 *
 * <p>Replay ({@link #replays()}): a failover chain's events recorded at their own times, each
 * call atomic and idempotent per replay id (docs/redis-protocol.md, "Replay"), in every mode.
 *
 * <p>Batches and coalescing: a batch ({@code addAll}, {@code countAll}, {@code tryAcquireAll},
 * {@code summaryAll}) is one call of a batch function per node of a cluster (one on a single
 * server), and concurrent single decisions and adds of one store bound for one node travel as
 * one batch call while another is on the wire ({@link Builder#coalescing}); a lone call goes out
 * at once. An all-or-nothing group is one call where its keys share one call
 * ({@link #tryAcquireAllOrNothingAsync}).
 *
 * <p>Locks ({@code wp_lock}, {@code wp_renew}, {@code wp_unlock}; docs/locks.md): {@code SET NX
 * PX} semantics with compare-token renewal and release, and a fencing counter per lock name
 * incremented in the same call. Lock expiry follows the engine's time, like windows.
 *
 * <p>Leasing: a limiter store's {@code lease} is one call of {@code wp_lease} (the largest grant
 * in [min, max] that fits every limit, recorded as an acquire of it at the engine's time) and its
 * {@code releaseAsync} one call of {@code wp_release} (unspent permits taken back out of where
 * the grant put them, idempotent per release id) (docs/redis-protocol.md, "Leasing").
 *
 * <p>Memory guard (on by default; {@link Builder#memoryGuard}): every second the engine reads
 * {@code INFO memory} and {@code INFO stats} of every primary, off the decision path, and keeps
 * a level per primary ({@link MemoryStatus}: NORMAL, WARN from 70 % of {@code maxmemory} or of
 * the configured budget, PRESSURE from 85 %, with hysteresis), logging each change once. Under
 * PRESSURE a write that would create a key on that primary is refused by the function itself
 * and fails with {@link io.windowpane.KeyCreationRefusedException} (in a failover chain the next
 * member answers it); keys that exist keep working. Redis's own {@code OOM} answers and
 * evictions are counted and logged the same way ({@link #memoryStatus()}; docs/failover.md,
 * "Memory pressure"). From WARN up, writes to adaptive windows
 * ({@link io.windowpane.WindowSpec#withAdaptive}) coarsen their keys, and back at NORMAL refine
 * them, one level per window length (docs/window-model.md, "Adaptive windows").
 */
public final class RedisEngine extends RemoteEngine {

  /** How often client-time mode measures the offset to the server's clock. */
  private static final long SKEW_INTERVAL_MILLIS = 10_000;

  /** Elapsed time of this process, immune to wall-clock steps: what lock holders measure. */
  private static final MillisClock MONOTONIC = () -> System.nanoTime() / 1_000_000;

  private final RedisSeam seam;
  private final RedisStores stores;
  private final SkewCorrectedClock skewClock;
  private final MemoryGuard guard;

  /** Closes {@code guardTask} and {@code skewTask} (when there are), then {@code seam}. */
  private RedisEngine(RedisSeam seam, RedisStores stores, SkewCorrectedClock skewClock,
      AutoCloseable skewTask, MemoryGuard guard, AutoCloseable guardTask) {
    super("redis", stores, guardTask, skewTask, seam);
    this.seam = seam;
    this.stores = stores;
    this.skewClock = skewClock;
    this.guard = guard;
  }

  /** Options: where Redis is, credentials, timeouts, script mode and time source. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * True: every store takes replayed events. A replay is one call of {@code wp_replay} (counters,
   * limiters), {@code wp_replay_record} (histogram statistics) or {@code wp_replay_xrecord}
   * (exact statistics), which records the events at {@code min(atMillis, now)} by the engine's
   * time (the server's, or the client's in {@link Builder#clientTime()} and
   * {@link Builder#clock} modes) in every window that still holds that instant, decides nothing,
   * and keeps a marker {@code <first window key>:y:<replayId>} under the key's hash tag for the
   * window's reach ({@code W + r}; 2W weighted) so that a repeat changes nothing. An exact
   * statistics window that is full takes the values that fit and drops the rest (a replay never
   * fails with {@link io.windowpane.CapacityExceededException}).
   */
  @Override
  public boolean replays() {
    return true;
  }

  /**
   * Decides the group in one call of {@code wp_group} wherever its keys can
   * share one call: always on one server; on a Redis Cluster when every key of the group lies in
   * one slot (hash tags). The function records every request, or none, atomically: nothing is
   * taken and given back, so a denied group never denies anyone else meanwhile. The answer is
   * the one the ordered leases give (docs/guarantees.md, "All-or-nothing across limiters"),
   * and they decide the group instead where the keys span slots of a cluster, and
   * for a group of one request (a plain {@code tryAcquire}).
   */
  @Override
  public CompletionStage<Optional<GroupDecision>> tryAcquireAllOrNothingAsync(
      List<GroupRequest> requests) {
    return stores.tryAcquireAllOrNothingAsync(requests);
  }

  /** Asks the server for its clock ({@code TIME}): one round trip, within the timeout. */
  @Override
  public CompletionStage<Void> probe() {
    return Calls.translated(seam.serverMillis(), "probe").thenApply(millis -> null);
  }

  /** Whether calls go through Redis Functions ({@code FCALL}) rather than {@code EVALSHA}. */
  public boolean usesFunctions() {
    return seam.functions();
  }

  /**
   * In {@link Builder#clientTime()} mode, the measured offset of the server's clock from the
   * local one (server minus local, ms); empty in the other modes.
   */
  public Optional<Long> measuredSkewMillis() {
    return skewClock == null ? Optional.empty() : Optional.of(skewClock.offsetMillis());
  }

  /**
   * What the memory guard last saw (read without I/O): the worst primary's level, used and
   * limit bytes, evictions, {@code OOM} answers and refused creations since the engine started.
   * Empty when the guard is off.
   */
  @Override
  public Optional<MemoryStatus> memoryStatus() {
    return guard == null ? Optional.empty() : Optional.of(guard.status());
  }

  /**
   * Reads every primary's memory now instead of at the next scheduled check, and answers the
   * status after it (a failed read leaves the levels as they were). Empty when the guard is off.
   */
  public Optional<CompletionStage<MemoryStatus>> checkMemory() {
    return guard == null ? Optional.empty()
        : Optional.<CompletionStage<MemoryStatus>>of(guard.check(seam));
  }

  /** Builds a {@link RedisEngine}. Each setter validates its argument at once. */
  public static final class Builder {
    private final List<RedisURI> uris = new ArrayList<>();
    private boolean cluster;
    private String username;
    private char[] password;
    private Integer database;
    private Duration timeout = Duration.ofSeconds(1);
    private Duration connectTimeout = Duration.ofSeconds(2);
    private ScriptMode scripts = ScriptMode.AUTO;
    private MillisClock clock;
    private MillisClock skewedLocal;
    private Duration expiryGrace = Duration.ofSeconds(1);
    private boolean coalescing = true;
    private boolean memoryGuard = true;
    private double warnAt = MemoryGuard.Settings.DEFAULTS.warnAt();
    private double pressureAt = MemoryGuard.Settings.DEFAULTS.pressureAt();
    private double hysteresis = MemoryGuard.Settings.DEFAULTS.hysteresis();
    private long memoryBudgetBytes;
    private Duration memoryCheckInterval =
        Duration.ofMillis(MemoryGuard.Settings.DEFAULTS.intervalMillis());

    private Builder() {}

    private static RedisURI parse(String uri) {
      if (uri == null || !(uri.startsWith("redis://") || uri.startsWith("rediss://"))) {
        throw new IllegalArgumentException(
            "uri must start with redis:// or rediss://, was " + uri);
      }
      try {
        return RedisURI.create(uri);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("uri is not a valid Redis URI: " + e.getMessage(), e);
      }
    }

    /**
     * One Redis server: {@code redis://[[user]:password@]host[:port][/database]}, or
     * {@code rediss://} for TLS. Credentials and database in the URI are used unless set below.
     */
    public Builder uri(String uri) {
      RedisURI parsed = parse(uri);
      uris.clear();
      uris.add(parsed);
      cluster = false;
      return this;
    }

    /**
     * A Redis Cluster, reached through any of {@code seedUris} (one is enough; the rest of the
     * topology is discovered). The function library is loaded on every primary.
     */
    public Builder cluster(String... seedUris) {
      if (seedUris == null || seedUris.length == 0) {
        throw new IllegalArgumentException("cluster needs at least one seed URI");
      }
      uris.clear();
      for (String uri : seedUris) {
        uris.add(parse(uri));
      }
      cluster = true;
      return this;
    }

    /** The ACL user (Redis 6+); with {@link #password}. */
    public Builder username(String username) {
      if (username == null || username.isEmpty()) {
        throw new IllegalArgumentException("username must be non-empty");
      }
      this.username = username;
      return this;
    }

    /** The password ({@code AUTH}); overrides one given in the URI. */
    public Builder password(String password) {
      if (password == null || password.isEmpty()) {
        throw new IllegalArgumentException("password must be non-empty");
      }
      this.password = password.toCharArray();
      return this;
    }

    /** The database number of a standalone server (0 to 15 on a default server). */
    public Builder database(int database) {
      if (database < 0 || database > 65_535) {
        throw new IllegalArgumentException("database must be in [0, 65535], was " + database);
      }
      this.database = database;
      return this;
    }

    /**
     * How long a call waits for Redis before failing with
     * {@link io.windowpane.WindowpaneTimeoutException} (default 1 s; 1 ms to 1 min).
     */
    public Builder timeout(Duration timeout) {
      this.timeout = checkDuration("timeout", timeout, 60_000);
      return this;
    }

    /** How long connecting may take (default 2 s; 1 ms to 1 min). */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = checkDuration("connectTimeout", connectTimeout, 60_000);
      return this;
    }

    private static Duration checkDuration(String what, Duration d, long maxMillis) {
      if (d == null || d.toMillis() < 1 || d.toMillis() > maxMillis) {
        throw new IllegalArgumentException(
            what + " must be in [1 ms, " + maxMillis + " ms], was " + d);
      }
      return d;
    }

    /** Functions, EVALSHA, or the best the server supports (the default). */
    public Builder scripts(ScriptMode mode) {
      if (mode == null) {
        throw new IllegalArgumentException("scripts must not be null");
      }
      this.scripts = mode;
      return this;
    }

    /** The server's clock, read inside each function (the default). */
    public Builder serverTime() {
      this.clock = null;
      this.skewedLocal = null;
      return this;
    }

    /**
     * The local system clock corrected by the offset to the server's clock, measured at start
     * and every {@code 10 s}: for servers that forbid {@code TIME} in scripts. The error is
     * about half a round trip plus the drift between measurements.
     */
    public Builder clientTime() {
      return clientTime(MillisClock.system());
    }

    /** Like {@link #clientTime()}, with {@code local} as the clock being corrected. */
    public Builder clientTime(MillisClock local) {
      if (local == null) {
        throw new IllegalArgumentException("local clock must not be null");
      }
      this.skewedLocal = local;
      this.clock = null;
      return this;
    }

    /** Passes {@code clock} as the time of every call, uncorrected (tests, own time sync). */
    public Builder clock(MillisClock clock) {
      if (clock == null) {
        throw new IllegalArgumentException("clock must not be null");
      }
      this.clock = clock;
      this.skewedLocal = null;
      return this;
    }

    /**
     * Whether concurrent single calls of one counter or limiter bound for one node are merged
     * into batch calls (default true): a call that finds no other of its kind on the wire to
     * its node goes out at once, alone, as before; calls that arrive while one is on the wire
     * go out together, as one call of the batch function, when it is answered (no timer).
     * Every caller gets exactly its own answer, the one its single call would have given at
     * the batch's time; a batch that fails fails each call in it. Covers {@code tryAcquire},
     * {@code tryConsume} and {@code add} (and their async forms), per permits or count: under
     * load one server call carries many decisions. False sends every call on its own.
     */
    public Builder coalescing(boolean coalescing) {
      this.coalescing = coalescing;
      return this;
    }

    /**
     * Whether the memory guard runs (default true): it reads {@code INFO memory} and
     * {@code INFO stats} of every primary every {@link #memoryCheckInterval} (two small commands
     * per primary, never on a decision's path) and, while a primary is at PRESSURE, the
     * functions refuse to create keys there ({@link io.windowpane.KeyCreationRefusedException});
     * keys that exist keep working. False: no reading, no refusal, {@link #memoryStatus()}
     * empty.
     */
    public Builder memoryGuard(boolean on) {
      this.memoryGuard = on;
      return this;
    }

    /**
     * The guard's levels as fractions of the limit ({@code maxmemory}, else
     * {@link #memoryBudget}): WARN from {@code warnAt} (default 0.70), PRESSURE from
     * {@code pressureAt} (default 0.85); a level is left downwards once usage falls
     * {@code hysteresis} (default 0.05) below its threshold. {@code 0 < warnAt < pressureAt <= 1}
     * and {@code 0 <= hysteresis < warnAt}.
     */
    public Builder memoryLevels(double warnAt, double pressureAt, double hysteresis) {
      if (!(warnAt > 0 && warnAt < 1)) {
        throw new IllegalArgumentException("warnAt must be in (0, 1), was " + warnAt);
      }
      if (!(pressureAt > warnAt && pressureAt <= 1)) {
        throw new IllegalArgumentException("pressureAt must be in (warnAt = " + warnAt
            + ", 1], was " + pressureAt);
      }
      if (!(hysteresis >= 0 && hysteresis < warnAt)) {
        throw new IllegalArgumentException("hysteresis must be in [0, warnAt = " + warnAt
            + "), was " + hysteresis);
      }
      this.warnAt = warnAt;
      this.pressureAt = pressureAt;
      this.hysteresis = hysteresis;
      return this;
    }

    /**
     * The bytes the levels are fractions of where Redis has no {@code maxmemory} (0, the
     * default: none, so such a server stays NORMAL unless it answers {@code OOM}); per primary.
     * 0 to 2^50 (1 PiB). A server's own {@code maxmemory} takes precedence.
     */
    public Builder memoryBudget(long bytes) {
      if (bytes < 0 || bytes > (1L << 50)) {
        throw new IllegalArgumentException("memoryBudget must be in [0, 2^50] bytes, was "
            + bytes);
      }
      this.memoryBudgetBytes = bytes;
      return this;
    }

    /** How often the guard reads the primaries' memory (default 1 s; 10 ms to 1 min). */
    public Builder memoryCheckInterval(Duration interval) {
      if (interval == null || interval.toMillis() < 10 || interval.toMillis() > 60_000) {
        throw new IllegalArgumentException(
            "memoryCheckInterval must be in [10 ms, 60000 ms], was " + interval);
      }
      this.memoryCheckInterval = interval;
      return this;
    }

    /**
     * With client time ({@link #clientTime()}, {@link #clock}): how much longer than their
     * logical expiry keys live in Redis (default 1 s; 0 to 366 days). Answers always follow the
     * logical expiry; the grace only covers a client clock that does not run exactly with the
     * server's, so that live state is never dropped early. Ignored with server time.
     */
    public Builder expiryGrace(Duration grace) {
      if (grace == null || grace.isNegative() || grace.toMillis() > 366L * 24 * 3600 * 1000) {
        throw new IllegalArgumentException("expiryGrace must be in [0, 366 days], was " + grace);
      }
      this.expiryGrace = grace;
      return this;
    }

    /**
     * The engine for a member of a {@link io.windowpane.Failover} chain that must start while
     * Redis is down: connects now like {@link #build()} if it can; if not, a
     * {@link DeferredEngine} that a chain starts {@code DOWN} and that keeps connecting in the
     * background (every 100 ms to 500 ms) until Redis answers, then is this engine. Bad options
     * throw at once, as from {@link #build()}. Outside a chain, use {@link #build()}, which
     * fails fast.
     */
    public DeferredEngine buildDeferred() {
      return DeferredEngine.connecting("redis", true, true, this::build);
    }

    /**
     * Connects, loads the function library where needed, and returns the engine. The client
     * reconnects by itself after a lost connection, pausing between attempts 1 ms, 2 ms, 4 ms
     * and so on up to 500 ms (not Lettuce's default 30 s), and rejects calls at once while
     * disconnected instead of queueing them.
     */
    public RedisEngine build() {
      if (uris.isEmpty()) {
        throw new IllegalStateException("set uri(...) or cluster(...) before build()");
      }
      for (RedisURI uri : uris) {
        if (password != null) {
          // what setAuthentication does in Lettuce 7, which 6.8 (Spring Boot 4.0.x's) lacks;
          // both have this. A null username: AUTH with the password alone (the default user).
          uri.setCredentialsProvider(new StaticCredentialsProvider(username, password));
        } else if (username != null) {
          throw new IllegalArgumentException("username: set a password with it");
        }
        if (database != null) {
          if (cluster) {
            throw new IllegalArgumentException("database: a Redis Cluster has only database 0");
          }
          uri.setDatabase(database);
        }
        uri.setTimeout(timeout);
      }
      FunctionLibrary library = FunctionLibrary.bundled();
      RedisSeam seam = cluster
          ? LettuceSeam.cluster(uris, timeout, connectTimeout, scripts, library)
          : LettuceSeam.standalone(uris.get(0), timeout, connectTimeout, scripts, library);
      TimeArg time = TimeArg.SERVER;
      MillisClock leaseClock = MONOTONIC; // lock leases measured against the server's expiry
      SkewCorrectedClock skew = null;
      AutoCloseable task = null;
      if (clock != null) {
        time = TimeArg.of(clock, expiryGrace.toMillis());
        leaseClock = clock;
      } else if (skewedLocal != null) {
        skew = new SkewCorrectedClock(skewedLocal, seam);
        skew.measure();
        task = seam.every(SKEW_INTERVAL_MILLIS, skew::measure);
        time = TimeArg.of(skew, expiryGrace.toMillis());
        leaseClock = skew;
      }
      MemoryGuard memory = null;
      AutoCloseable memoryTask = null;
      if (memoryGuard) {
        memory = new MemoryGuard(new MemoryGuard.Settings(warnAt, pressureAt, hysteresis,
            memoryBudgetBytes, memoryCheckInterval.toMillis()));
        RedisSeam watched = seam;
        MemoryGuard g = memory;
        try { // the first reading before the first call; a failure leaves the levels NORMAL
          memory.check(watched).get(timeout.toMillis() * 2,
              java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (Exception ignored) {
          // logged by the guard; the schedule reads again
        }
        memoryTask = seam.every(memoryCheckInterval.toMillis(), () -> g.check(watched));
        seam = new GuardedSeam(seam, memory);
      }
      long guard = timeout.toMillis() * 2 + 1_000;
      return new RedisEngine(seam, new RedisStores(seam, time, guard, leaseClock,
          coalescing), skew, task, memory, memoryTask);
    }
  }
}
