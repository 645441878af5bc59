package io.windowpane.redis.internal;

import io.windowpane.MemoryStatus;
import io.windowpane.MemoryStatus.Level;
import java.lang.System.Logger;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/*
 * Design note. The memory guard keeps a shared Redis from being filled by the limiter itself.
 * Every interval (1 s by default) it reads INFO memory and INFO stats of every primary, off the
 * decision path (a scheduled task on the client's executors; calls never wait for it), and keeps
 * one level per primary: NORMAL, WARN from warnAt of the limit, PRESSURE from pressureAt. The
 * limit is the primary's maxmemory, or the configured budget where maxmemory is 0. A level is
 * left downwards only once usage falls `hysteresis` below its threshold. Each level change is
 * one log line (System.Logger "io.windowpane.redis.memory").
 *
 * Under PRESSURE, GuardedSeam marks the calls bound for that primary (the time argument's '!'):
 * the library's writing functions then refuse, before reading or writing anything, a write that
 * would create a key (WPNOKEY, or -2 per batch item), while keys that exist keep working. The
 * decision costs one volatile read per call while no primary is under pressure.
 *
 * From WARN up, the same calls carry the coarsening flag (the time argument's '~', or the '!'
 * that includes it): their writes to adaptive windows coarsen those keys (fewer, longer panes),
 * and back at NORMAL the writes refine them, one level per window length at most
 * (docs/window-model.md, "Adaptive windows"). Memory shrinks before new keys are refused.
 *
 * Redis's own refusals are reported the same way: a call answered OOM puts its primary at
 * PRESSURE at once (until the next reading says otherwise), and evictions (evicted_keys rising:
 * windows forgotten under an eviction policy) are counted and logged once per reading that sees
 * them.
 *
 * A primary that answers INFO with an error (an ACL user without +info) is UNKNOWN, with one log
 * line when it becomes so: the guard cannot see it fill up, so nothing is shed before Redis
 * itself refuses. Its OOM answers still put it at PRESSURE; there, with no reading to say
 * otherwise, it stays while every reading finds an OOM answered since the one before, and is
 * UNKNOWN again after a reading that finds none.
 *
 * Why not shorter TTLs under pressure: a window's TTL is W + r after its last event, the least
 * that keeps every event still inside the window; a shorter one would forget events a limit
 * must still count. What the guard sheds instead is new keys.
 */

/** Watches the memory of every primary and keeps a level per primary. Thread-safe. */
public final class MemoryGuard {

  private static final Logger LOG = System.getLogger("io.windowpane.redis.memory");

  /** The guard's options, checked by the engine's builder. */
  public record Settings(double warnAt, double pressureAt, double hysteresis, long budgetBytes,
      long intervalMillis) {
    public static final Settings DEFAULTS = new Settings(0.70, 0.85, 0.05, 0, 1_000);
  }

  /** One primary as last read. */
  private static final class Node {
    final String address;
    volatile Level level = Level.NORMAL;
    volatile long used;
    volatile long limit;
    volatile String policy = "";
    long evictedAtStart = -1;
    volatile long evicted;
    /** OOM answers from this primary, and their number at the last reading. */
    final AtomicLong oom = new AtomicLong();
    long oomAtReading;

    Node(String address) {
      this.address = address;
    }
  }

  private final Settings settings;
  private final Map<String, Node> nodes = new ConcurrentHashMap<>();
  /** Whether some primary is at PRESSURE: the one read a call makes while none is. */
  private volatile boolean anyPressure;
  /** Whether some primary is at WARN or PRESSURE. */
  private volatile boolean anyWarn;
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong changes = new AtomicLong();
  private volatile String lastReadFailure = "";

  public MemoryGuard(Settings settings) {
    this.settings = settings;
  }

  /** Whether a write bound for primary {@code node} must create no key. */
  boolean noNewKeys(String node) {
    if (!anyPressure) {
      return false;
    }
    Node n = nodes.get(node);
    return n != null && n.level == Level.PRESSURE;
  }

  /** Whether some primary is at WARN or PRESSURE: the one read a call makes while none is. */
  boolean anyWarn() {
    return anyWarn;
  }

  /**
   * The flag for writes bound for primary {@code node}: {@code "!"} (no new keys, and coarsen)
   * at PRESSURE, {@code "~"} (coarsen adaptive windows) at WARN, else null.
   */
  String flag(String node) {
    if (!anyWarn) {
      return null;
    }
    Node n = nodes.get(node);
    if (n == null) {
      return null;
    }
    return n.level == Level.PRESSURE ? "!" : n.level == Level.WARN ? "~" : null;
  }

  /** WARN and PRESSURE coarsen; NORMAL and UNKNOWN (INFO refused: no reading) do not. */
  private static boolean coarsens(Level level) {
    return level == Level.WARN || level == Level.PRESSURE;
  }

  /** Reads every primary now; completes when the levels are updated (never exceptionally). */
  public CompletableFuture<MemoryStatus> check(RedisSeam seam) {
    CompletableFuture<List<RedisSeam.NodeInfo>> read;
    try {
      read = seam.primariesInfo();
    } catch (RuntimeException e) {
      read = CompletableFuture.failedFuture(e);
    }
    return read.handle((infos, e) -> {
      if (e != null) {
        String failure = String.valueOf(RedisFailures.unwrap(e).getMessage());
        if (!failure.equals(lastReadFailure)) { // one line per distinct failure, not per second
          LOG.log(Logger.Level.WARNING, "memory guard: cannot read INFO: " + failure);
          lastReadFailure = failure;
        }
      } else {
        lastReadFailure = "";
        for (RedisSeam.NodeInfo info : infos) {
          update(info);
        }
      }
      return status();
    });
  }

  /** Takes in one primary's reading. */
  void update(RedisSeam.NodeInfo info) {
    Node n = nodes.computeIfAbsent(info.node(), k -> new Node(info.address()));
    long oomNow = n.oom.get();
    boolean oomSince = oomNow != n.oomAtReading;
    n.oomAtReading = oomNow;
    if (info.info() == null) {
      Level to = n.level == Level.PRESSURE && oomSince ? Level.PRESSURE : Level.UNKNOWN;
      moveTo(n, to, 0, ": INFO refused (" + info.refusal() + "), so the guard cannot see this"
          + " primary's memory; give the user +info");
      return;
    }
    Map<String, String> fields = InfoText.fields(info.info());
    long used = InfoText.number(fields, "used_memory");
    long max = InfoText.number(fields, "maxmemory");
    long evictedNow = InfoText.number(fields, "evicted_keys");
    n.used = Math.max(0, used);
    n.limit = max > 0 ? max : settings.budgetBytes();
    n.policy = fields.getOrDefault("maxmemory_policy", "");
    if (evictedNow >= 0) {
      if (n.evictedAtStart < 0 || evictedNow < n.evictedAtStart + n.evicted) {
        n.evictedAtStart = evictedNow - n.evicted; // first reading, or the counter was reset
      }
      long since = evictedNow - n.evictedAtStart;
      if (since > n.evicted) {
        LOG.log(Logger.Level.WARNING, String.format(Locale.ROOT, "Redis at %s evicted %d keys"
            + " since the last reading (policy %s, %s of %s): windows were forgotten",
            n.address, since - n.evicted, n.policy, bytes(n.used), bytes(n.limit)));
      }
      n.evicted = since;
    }
    double usage = n.limit > 0 ? (double) n.used / n.limit : 0;
    moveTo(n, next(n.level, usage, settings), usage, "");
  }

  /**
   * The level after {@code current} at {@code usage} (see the design note); from UNKNOWN, as
   * from a first reading.
   */
  static Level next(Level current, double usage, Settings s) {
    if (current == Level.UNKNOWN) {
      current = Level.NORMAL;
    }
    Level up = usage >= s.pressureAt() ? Level.PRESSURE
        : usage >= s.warnAt() ? Level.WARN : Level.NORMAL;
    if (up.ordinal() >= current.ordinal()) {
      return up;
    }
    Level down = usage >= s.pressureAt() - s.hysteresis() ? Level.PRESSURE
        : usage >= s.warnAt() - s.hysteresis() ? Level.WARN : Level.NORMAL;
    return down.ordinal() < current.ordinal() ? down : current;
  }

  private synchronized void moveTo(Node n, Level to, double usage, String why) {
    Level from = n.level;
    if (from != to) {
      n.level = to;
      changes.incrementAndGet();
      LOG.log(to == Level.NORMAL ? Logger.Level.INFO : Logger.Level.WARNING,
          String.format(Locale.ROOT, "Redis memory at %s: %s -> %s%s%s%s", n.address, from, to,
              to == Level.UNKNOWN ? "" : reading(n, usage), why,
              to == Level.PRESSURE ? ": new keys are refused, existing keys keep working"
                  : from == Level.PRESSURE ? ": new keys are accepted again" : ""));
    }
    boolean any = false;
    boolean warn = false;
    for (Node each : nodes.values()) {
      any |= each.level == Level.PRESSURE;
      warn |= coarsens(each.level);
    }
    anyPressure = any;
    anyWarn = warn;
  }

  /** What the log says of {@code n}'s last reading: nothing where there was none. */
  private static String reading(Node n, double usage) {
    String policy = n.policy.isEmpty() ? "?" : n.policy;
    if (n.limit > 0) {
      return String.format(Locale.ROOT, " (%.1f%% of %s, used %s, policy %s)", usage * 100,
          bytes(n.limit), bytes(n.used), policy);
    }
    return n.used > 0 ? " (used " + bytes(n.used) + ", no limit, policy " + policy + ")" : "";
  }

  /**
   * A call to primary {@code node} was answered OOM by Redis: PRESSURE until the next reading
   * (a primary not read yet is taken in now, known by its node id).
   */
  void outOfMemory(String node) {
    Node n = nodes.computeIfAbsent(node, k -> new Node(k.isEmpty() ? "the server" : k));
    n.oom.incrementAndGet();
    moveTo(n, Level.PRESSURE, n.limit > 0 ? (double) n.used / n.limit : 1,
        ": Redis answered a write with OOM");
  }

  /** {@code items} writes were refused because they would have created a key. */
  void refused(int items) {
    refused.addAndGet(items);
  }

  /** The worst primary's level; bytes summed over the primaries; counters since the start. */
  public MemoryStatus status() {
    Level level = Level.NORMAL;
    long used = 0;
    long limit = 0;
    long evicted = 0;
    long oom = 0;
    String policy = "";
    for (Node n : nodes.values()) {
      if (severity(n.level) > severity(level)) {
        level = n.level;
      }
      used += n.used;
      limit += n.limit;
      evicted += n.evicted;
      oom += n.oom.get();
      policy = n.policy;
    }
    return new MemoryStatus(level, used, limit, policy, evicted, oom, refused.get(),
        changes.get());
  }

  /** Worst last: NORMAL, UNKNOWN, WARN, PRESSURE. */
  private static int severity(Level level) {
    return level == Level.UNKNOWN ? 1 : level == Level.NORMAL ? 0 : level.ordinal() + 1;
  }

  static String bytes(long n) {
    if (n <= 0) {
      return "no limit";
    }
    return n >= 1 << 20 ? String.format(Locale.ROOT, "%.1f MB", n / 1048576.0)
        : String.format(Locale.ROOT, "%.1f kB", n / 1024.0);
  }
}
