package io.windowpane.etcd;

import io.windowpane.MillisClock;
import io.windowpane.WindowpaneException;
import io.windowpane.etcd.internal.Context;
import io.windowpane.etcd.internal.EtcdSeam;
import io.windowpane.etcd.internal.EtcdStores;
import io.windowpane.etcd.internal.JetcdSeam;
import io.windowpane.spi.DeferredEngine;
import io.windowpane.spi.RemoteEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The etcd engine: strongly consistent windows for low-rate keys that must never be wrong
 * (quotas on money movement, licence seats).
 *
 * <pre>{@code
 * Windowpane wp = Windowpane.using(EtcdEngine.builder()
 *     .endpoints("http://etcd-1:2379", "http://etcd-2:2379", "http://etcd-3:2379")
 *     .build());
 * }</pre>
 *
 * <p>Guarantees. Each key's state (all limits of a quota together) is one etcd value, changed
 * only by a transaction that compares its mod revision: every answer is linearizable, no event
 * is lost or counted twice, no limit is ever exceeded, across any number of processes, and
 * through the loss of an etcd leader (a write whose answer was lost is recognised by its nonce,
 * never applied twice). A denied request writes nothing. The concurrent operations of one
 * process on one key are coalesced into one transaction. When other processes keep winning the
 * compare-and-swap, a batch retries with full-jitter exponential backoff up to
 * {@link Builder#conflictRetries} times, then fails with {@link WindowpaneException}.
 *
 * <p>Time. etcd has no clock: operations carry this engine's clock ({@link Builder#clock},
 * the system clock by default), read once per call. A key's time never goes backwards: a call
 * whose clock lags behind the newest time already applied to that key acts at that newest time.
 * Under a skew of d ms between clients, an event therefore stays counted between W and W + d of
 * real time: limits get stricter by up to d, never looser. See {@code docs/etcd.md}.
 *
 * <p>Expiry. Answers follow the logical expiry ({@code W + r} after a key's last event) stored
 * in the state. Keys are deleted by etcd through a few shared, rotating leases, between
 * {@code W + r + grace} and about 1/8 more after their last write.
 *
 * <p>Locks: one key per lock under {@code <namespace>/lock/}, taken, renewed and released by
 * compare-and-swap on its mod revision; the fencing token is the etcd revision of the write
 * that took the lock (docs/locks.md). A reconfigured limiter
 * ({@link io.windowpane.Windowpane#reconfigure}) keeps its etcd keys, named by the permits it
 * was created with, while it runs; a process started with the new permits uses keys of its own.
 *
 * <p>Failures surface as {@link WindowpaneException} ({@link io.windowpane.WindowpaneTimeoutException}
 * once {@link Builder#timeout} passes) with the cause attached. Thread-safe.
 */
public final class EtcdEngine extends RemoteEngine {

  private final Context ctx;
  private final EtcdSeam seam;
  private final byte[] probeKey;

  private EtcdEngine(Context ctx, EtcdSeam seam, String namespace) {
    super("etcd", new EtcdStores(ctx), ctx);
    this.ctx = ctx;
    this.seam = seam;
    this.probeKey = (namespace + "/probe").getBytes(StandardCharsets.UTF_8);
  }

  /** Options: endpoints, credentials, timeouts, clock, retry budget. */
  public static Builder builder() {
    return new Builder();
  }

  /** One linearizable read (it needs a leader and a quorum), within the timeout. */
  @Override
  public CompletionStage<Void> probe() {
    CompletableFuture<Void> out = new CompletableFuture<>();
    seam.get(probeKey).orTimeout(ctx.timeoutMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((s, e) -> {
          if (e == null) {
            out.complete(null);
          } else {
            out.completeExceptionally(new WindowpaneException("etcd probe failed: " + e, e));
          }
        });
    return out;
  }

  /**
   * True: counters, limiters and statistics take replayed events. Each replay joins its key's
   * lane like any other operation and lands in the same compare-and-swap transaction, into the
   * pane or log position of its time; the key remembers the ids of its last 1,024 replays for
   * {@code W + r} of its time (hashed, in the key's value), so a replay sent again within both
   * bounds changes nothing. A chunk of replays ({@code replayAllAsync}) reads its keys in one
   * transaction and writes them in one compare-and-swap transaction on all their mod revisions
   * (more when it touches over {@link Builder#maxTxnOps} keys or values over
   * {@link Builder#maxValueBytes} in all); keys that live calls wrote meanwhile go through their
   * lanes instead. See {@code docs/etcd.md}.
   */
  @Override
  public boolean replays() {
    return true;
  }

  /** 500 ms: a write commits through raft and an fsync on a majority of members. */
  @Override
  public java.time.Duration failoverTimeout() {
    return FAILOVER_TIMEOUT;
  }

  static final java.time.Duration FAILOVER_TIMEOUT = java.time.Duration.ofMillis(500);

  /** What the engine did so far: operations, transactions, conflicts, give-ups, retries. */
  public EtcdMetrics metrics() {
    long[] c = ctx.counts();
    return new EtcdMetrics(c[0], c[1], c[2], c[3], c[4]);
  }

  /** Builds an {@link EtcdEngine}. Each setter validates its argument at once. */
  public static final class Builder {
    private final List<String> endpoints = new ArrayList<>();
    private String user;
    private String password;
    private String namespace = "windowpane";
    private Duration timeout = Duration.ofSeconds(5);
    private Duration connectTimeout = Duration.ofSeconds(2);
    private MillisClock clock = MillisClock.system();
    private Duration expiryGrace = Duration.ofSeconds(1);
    private int conflictRetries = 64;
    private Duration backoffBase = Duration.ofMillis(2);
    private Duration backoffMax = Duration.ofMillis(200);
    private int maxValueBytes = 1_500_000;
    private long cacheStalenessMillis;
    private int maxTxnOps = Context.DEFAULT_MAX_TXN_OPS;

    private Builder() {}

    /** The etcd members' client URLs, {@code http://host:port} (at least one). */
    public Builder endpoints(String... urls) {
      if (urls == null || urls.length == 0) {
        throw new IllegalArgumentException("endpoints must name at least one URL");
      }
      List<String> checked = new ArrayList<>();
      for (String url : urls) {
        if (url == null || !(url.startsWith("http://") || url.startsWith("https://"))) {
          throw new IllegalArgumentException(
              "endpoints must be http:// or https:// URLs, was " + url);
        }
        checked.add(url);
      }
      endpoints.clear();
      endpoints.addAll(checked);
      return this;
    }

    /** etcd authentication. */
    public Builder credentials(String user, String password) {
      if (user == null || user.isEmpty() || password == null || password.isEmpty()) {
        throw new IllegalArgumentException("user and password must be non-empty");
      }
      this.user = user;
      this.password = password;
      return this;
    }

    /**
     * The first segment of every key (default {@code windowpane}): 1 to 64 characters of
     * {@code [A-Za-z0-9_.:-]}. Engines sharing a namespace share state.
     */
    public Builder namespace(String namespace) {
      if (namespace == null || !namespace.matches("[A-Za-z0-9_.:-]{1,64}")) {
        throw new IllegalArgumentException(
            "namespace must be 1 to 64 characters of [A-Za-z0-9_.:-], was " + namespace);
      }
      this.namespace = namespace;
      return this;
    }

    /**
     * How long one call may take, retries included, before it fails with
     * {@link io.windowpane.WindowpaneTimeoutException} (default 5 s, long enough to ride out a
     * leader election; 1 ms to 10 min).
     */
    public Builder timeout(Duration timeout) {
      this.timeout = check("timeout", timeout, 1, 600_000);
      return this;
    }

    /** How long connecting may take (default 2 s; 1 ms to 1 min). */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = check("connectTimeout", connectTimeout, 1, 60_000);
      return this;
    }

    /** The clock whose time calls carry (default the system clock). */
    public Builder clock(MillisClock clock) {
      if (clock == null) {
        throw new IllegalArgumentException("clock must not be null");
      }
      this.clock = clock;
      return this;
    }

    /**
     * How much longer than their logical expiry keys live in etcd (default 1 s; 0 to 366 days):
     * covers clock skew between clients, and manual clocks in tests. Answers always follow the
     * logical expiry.
     */
    public Builder expiryGrace(Duration grace) {
      this.expiryGrace = check("expiryGrace", grace, 0, 366L * 24 * 3600 * 1000);
      return this;
    }

    /**
     * How many lost compare-and-swaps in a row one batch retries before failing (default 64;
     * 0 to 1,000). Only other processes' writes make a compare fail.
     */
    public Builder conflictRetries(int retries) {
      if (retries < 0 || retries > 1_000) {
        throw new IllegalArgumentException("conflictRetries must be in [0, 1000], was " + retries);
      }
      this.conflictRetries = retries;
      return this;
    }

    /**
     * Pauses (defaults 2 ms and 200 ms; base 1 ms to max, max at most 10 s). On a key other
     * processes write too, each transaction waits uniformly in [0, base / (1 + k)] after losing
     * k compares in a row (k = 0 after a win). A call that failed (timeout, lost connection,
     * leader change) is retried after a full-jitter exponential backoff, uniform in
     * [0, min(max, base * 2^(n-1))] before retry n, while the call's timeout allows.
     */
    public Builder backoff(Duration base, Duration max) {
      Duration m = check("backoff max", max, 1, 10_000);
      this.backoffBase = check("backoff base", base, 1, m.toMillis());
      this.backoffMax = m;
      return this;
    }

    /**
     * The largest value the engine writes (default 1,500,000 bytes, under etcd's default
     * 1.5 MiB request limit; 1 KiB to 64 MiB): bounds exact statistics windows.
     */
    public Builder maxValueBytes(int bytes) {
      if (bytes < 1024 || bytes > 64 << 20) {
        throw new IllegalArgumentException(
            "maxValueBytes must be in [1024, " + (64 << 20) + "], was " + bytes);
      }
      this.maxValueBytes = bytes;
      return this;
    }

    /**
     * The most keys one transaction may touch (default 128, etcd's default
     * {@code --max-txn-ops}; 1 to 10,000): set it to the etcd members' {@code --max-txn-ops}
     * if that is lower. A replay of many batches ({@code replayAllAsync}) reads and writes its
     * keys this many at a time (one compare, one put and one read per key).
     */
    public Builder maxTxnOps(int ops) {
      if (ops < 1 || ops > 10_000) {
        throw new IllegalArgumentException("maxTxnOps must be in [1, 10000], was " + ops);
      }
      this.maxTxnOps = ops;
      return this;
    }

    /**
     * Serves counters' {@code count} from a local cache fed by one etcd watch per counter, when
     * etcd confirmed the watch's progress within {@code maxStaleness} (10 ms to 1 min; asked for
     * every maxStaleness / 4): a cached count reflects every write etcd committed up to a
     * revision it confirmed at most that long ago, and always this process's own writes. Off by
     * default: every count is then a linearizable read. The cache resyncs by itself when the
     * watch loses events (a broken stream, or compaction past its revision).
     */
    public Builder cachedCounts(Duration maxStaleness) {
      this.cacheStalenessMillis = check("maxStaleness", maxStaleness, 10, 60_000).toMillis();
      return this;
    }

    private static Duration check(String what, Duration d, long minMillis, long maxMillis) {
      if (d == null || d.isNegative() || d.toMillis() < minMillis || d.toMillis() > maxMillis) {
        throw new IllegalArgumentException(what + " must be in [" + minMillis + " ms, "
            + maxMillis + " ms], was " + d);
      }
      return d;
    }

    /**
     * The engine for a member of a {@link io.windowpane.Failover} chain that must start while
     * etcd is down: builds it and asks etcd for an answer within the connect timeout; if none
     * comes, a {@link DeferredEngine} that a chain starts {@code DOWN} and that keeps trying in
     * the background (every 100 ms to 500 ms) until etcd answers, then is this engine. Bad
     * options throw at once.
     */
    public DeferredEngine buildDeferred() {
      return DeferredEngine.connecting("etcd", true, true, FAILOVER_TIMEOUT, () -> {
        EtcdEngine e = build();
        try {
          e.probe().toCompletableFuture().get(connectTimeout.toMillis(),
              java.util.concurrent.TimeUnit.MILLISECONDS);
          return e;
        } catch (Exception failure) {
          e.close();
          if (failure instanceof InterruptedException) {
            Thread.currentThread().interrupt();
          }
          Throwable cause = failure instanceof java.util.concurrent.ExecutionException
              && failure.getCause() != null ? failure.getCause() : failure;
          throw new io.windowpane.WindowpaneException("cannot reach etcd at " + endpoints
              + " within " + connectTimeout.toMillis() + " ms: " + cause, cause);
        }
      });
    }

    /** Connects and returns the engine. */
    public EtcdEngine build() {
      if (endpoints.isEmpty()) {
        throw new IllegalStateException("set endpoints(...) before build()");
      }
      EtcdSeam seam = JetcdSeam.connect(endpoints, connectTimeout, user, password);
      Context ctx = new Context(seam, clock, namespace, timeout.toMillis(),
          expiryGrace.toMillis(), conflictRetries, backoffBase.toMillis(), backoffMax.toMillis(),
          maxValueBytes, cacheStalenessMillis, maxTxnOps);
      return new EtcdEngine(ctx, seam, namespace);
    }
  }
}
