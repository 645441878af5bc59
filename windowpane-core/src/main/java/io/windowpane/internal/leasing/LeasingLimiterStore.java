package io.windowpane.internal.leasing;

import io.windowpane.Decision;
import io.windowpane.LeaseStats;
import io.windowpane.Leasing;
import io.windowpane.MillisClock;
import io.windowpane.Quota;
import io.windowpane.TopKey;
import io.windowpane.WindowpaneException;
import io.windowpane.internal.Stages;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/*
 * Hot-key leasing over any engine's limiter store (docs/leasing.md).
 *
 * A request for p permits first tries the key's slice on this node: one compare-and-swap on its
 * unspent permits, valid while this node's clock is before the slice's deadline. When the slice
 * cannot answer, one request per key (the token holder, see KeyLease) closes it, returns its
 * unspent permits to the engine at the grant's time (releaseAsync) and, once that call has
 * answered, asks for the next slice: lease(key, p, target), where the engine grants and records
 * the largest g <= target that fits, if g >= p. The holder takes its p from the grant; other
 * requests for the key wait for the holder and try the new slice (after a few rounds they ask the
 * engine directly with tryAcquire, so no request waits for ever on a key others keep draining).
 * A denial is not kept: the next request for the key asks the engine again. (Repeating a denial
 * on the node until its pane ends was tried and taken out: its counted-down retryAfter disagreed
 * with the engine's, and a key under attack then costs one engine call per denied request, as
 * without leasing.)
 *
 * Why these choices:
 * - Lifetime: a grant is spent only within the pane (fixed window, log lifetime) of its time t0
 *   on the engine's clock, so a spent permit sits where tryAcquire would have put it: panes and
 *   weighted windows admit exactly what they admit without leasing (Lifetimes). The deadline is
 *   taken from this node's clock read BEFORE the call was sent, so it can only be early.
 * - Returning before asking: the next lease must see this node's own unspent permits as room,
 *   or a single node would be denied by its own slice (and a release racing a lease on another
 *   connection would make denials depend on timing). It costs a second round trip only when the
 *   old slice had permits left.
 * - Size: the permits this node used from the last slice over the time since it asked, times
 *   the next lifetime (doubled when the slice ran out early), at most maxShare of the room the
 *   engine reported and maxSlice; at least p. A key's first lease is exactly p, and near the
 *   limit share x room < 1, so every lease is exactly p: leasing is then tryAcquire, and a
 *   lease of exactly p is sent as tryAcquire (the engine's cheapest call; on Redis wp_lease
 *   costs more than wp_take's fast path). A key leases only once this node has asked for
 *   MIN_STREAK permits of it with plain decisions within one lifetime, sized from that streak's
 *   rate: an unspent lease costs two calls (lease, return) where tryAcquire costs one, so keys
 *   seen now and then (10,000 keys, each a few times a second) cost what they cost without
 *   leasing, and a hot key leases after its first few requests.
 * - Expired slices are closed and returned by the Windowpane's sweeper thread, visiting only
 *   the keys that leased (every quarter of the shortest lifetime); every RETIRE_MILLIS it
 *   drops keys idle for RETIRE_MILLIS after their last slice: memory is bounded by the keys
 *   asked for in the last 2 x RETIRE_MILLIS.
 * - An engine that cannot lease (lease answers empty) turns leasing off for this limiter, with
 *   one log line: every request then goes to the engine, as without leasing. A failover chain
 *   leases from the member that answers, and the unspent rest goes back to that member
 *   (releaseAsync with the Grant, which names it), never to another.
 */
public final class LeasingLimiterStore implements LimiterStore, AutoCloseable {

  private static final System.Logger LOG =
      System.getLogger(LeasingLimiterStore.class.getName());

  /** Rounds a request waits for other requests' leases before it asks the engine itself. */
  static final int MAX_ROUNDS = 4;

  /**
   * Permits a key must have asked for with plain decisions within one lease lifetime before it
   * leases: a lease not spent costs two calls (the lease and the return of its rest) where
   * tryAcquire costs one, so a key seen only now and then keeps plain decisions.
   */
  static final long MIN_STREAK = 4;

  /** How long after its lease ended an idle key is dropped from this node's table. */
  static final long RETIRE_MILLIS = 2_000;

  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  private final String name;
  private final Quota quota;
  private final LimiterStore store;
  private final MillisClock clock;
  private final Lifetimes lifetimes;
  private final double maxShare;
  private final long maxSlice;
  private final ConcurrentHashMap<String, KeyLease> keys = new ConcurrentHashMap<>();
  private final LeaseCounters counters = new LeaseCounters();
  private final String idPrefix;
  private final AtomicLong ids = new AtomicLong();
  private final ScheduledFuture<?> sweep;
  private final ScheduledFuture<?> retire;
  private final java.util.Set<String> leased = ConcurrentHashMap.newKeySet(); // keys with grants
  private volatile boolean off;

  /**
   * Leasing over {@code store}, the engine's store for {@code quota} (whose leasing options
   * apply); {@code sweeper} runs this store's sweeps, null for none ({@link #cleanUp} sweeps).
   */
  public LeasingLimiterStore(String name, Quota quota, LimiterStore store, io.windowpane.internal.Periodic sweeper) {
    Leasing leasing = quota.leasing().orElseThrow();
    this.name = name;
    this.quota = quota;
    this.store = store;
    this.clock = leasing.clock();
    this.lifetimes = new Lifetimes(quota, leasing.logLifetimeMillis());
    this.maxShare = leasing.maxShare();
    this.maxSlice = Math.min(leasing.maxSlice(), quota.smallestPermits());
    this.idPrefix = "wl." + Long.toHexString(new java.security.SecureRandom().nextLong()) + ".";
    long period = Math.max(5, Math.min(1_000, lifetimes.shortest() / 4));
    this.sweep = sweeper == null ? null : sweeper.every(period, this::returnExpired);
    this.retire = sweeper == null ? null : sweeper.every(RETIRE_MILLIS, this::retireIdle);
  }

  /** The counters so far. */
  public LeaseStats stats() {
    return counters.snapshot(!off);
  }

  // ---- decisions ----------------------------------------------------------------------------

  @Override
  public boolean tryConsume(String key, long permits) {
    KeyLease e = off ? null : keys.get(key);
    if (e != null) {
      Slice s = e.slice;
      long now = clock.millis();
      if (now < s.deadline && s.take(permits) >= 0) {
        counters.local.increment();
        return true;
      }
    }
    Decision d = plainHere(key, permits);
    return d != null ? d.allowed() : join(slow(key, permits, 0)).allowed();
  }

  @Override
  public Decision tryAcquire(String key, long permits) {
    Decision d = off ? null : local(keys.get(key), permits);
    if (d == null) {
      d = plainHere(key, permits);
    }
    return d != null ? d : join(slow(key, permits, 0));
  }

  /**
   * For a blocking caller: the engine's plain decision, taken on the caller's thread, when the
   * key would not lease now (leasing off, or a slice of just the request with nothing to
   * return); null when the request must go through {@link #slow} (a slice to return or to
   * lease, or another request holding the key's token). The async path takes the same decision
   * in a continuation on the engine's I/O thread; for a key seen now and then (10,000 keys)
   * that extra work on the one I/O thread cost about a fifth of the throughput.
   */
  private Decision plainHere(String key, long permits) {
    if (off) {
      counters.engine.increment();
      return store.tryAcquire(key, permits);
    }
    KeyLease e = keys.computeIfAbsent(key, k -> new KeyLease());
    CompletableFuture<Void> mine = e.claim();
    if (mine == null) {
      return null;
    }
    try {
      Slice old = e.slice;
      long now = clock.millis();
      if (e.retired || old.left() > 0 || size(e, old, 0, permits, now) != permits) {
        return null;
      }
      old.close();
      long sent = clock.millis();
      return spent(e, permits, sent, store.tryAcquire(key, permits));
    } finally {
      e.unclaim(mine);
    }
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(String key, long permits) {
    Decision d = off ? null : local(keys.get(key), permits);
    return d != null ? CompletableFuture.completedFuture(d) : slow(key, permits, 0);
  }

  /** One key after the other, in order, as {@link #tryAcquireAllAsync} decides them. */
  @Override
  public List<Decision> tryAcquireAll(List<String> keys, long permits) {
    return Stages.itemsNow("tryAcquireAll", keys, key -> tryAcquire(key, permits));
  }

  /**
   * One key after the other, in order, as the blocking form; never blocks the caller. A key the
   * engine refuses to create (memory pressure) leaves the others decided: the batch then fails
   * with a refusal carrying their decisions.
   */
  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<String> keys, long permits) {
    List<CompletableFuture<Decision>> each = new ArrayList<>(keys.size());
    CompletableFuture<?> previous = CompletableFuture.completedFuture(null);
    for (String key : keys) {
      CompletableFuture<Decision> d = previous.handle((x, e) -> null)
          .thenCompose(x -> Stages.call(() -> tryAcquireAsync(key, permits)));
      each.add(d);
      previous = d;
    }
    return Stages.items("tryAcquireAll", keys, each);
  }

  /** The slice's answer for {@code permits} now, or null when the engine must be asked. */
  private Decision local(KeyLease e, long permits) {
    if (e == null) {
      return null;
    }
    Slice s = e.slice;
    long now = clock.millis();
    if (now >= s.deadline) {
      return null;
    }
    long left = s.take(permits);
    if (left < 0) {
      return null;
    }
    counters.local.increment();
    return Decision.allowed(left + s.serverRemaining);
  }

  /** A request the slice could not answer: wait for a lease in flight, or make one. */
  private CompletableFuture<Decision> slow(String key, long permits, int round) {
    if (off) {
      return engine(key, permits);
    }
    if (round >= MAX_ROUNDS) {
      return engine(key, permits);
    }
    KeyLease e = keys.computeIfAbsent(key, k -> new KeyLease());
    Decision d = local(e, permits);
    if (d != null) {
      return CompletableFuture.completedFuture(d);
    }
    CompletableFuture<Void> running = e.renewal.get();
    if (running != null) {
      return running.thenCompose(v -> slow(key, permits, round + 1));
    }
    CompletableFuture<Void> mine = e.claim();
    if (mine == null) {
      return slow(key, permits, round + 1);
    }
    if (e.retired) {
      e.unclaim(mine);
      return slow(key, permits, round + 1);
    }
    d = local(e, permits); // a lease may have landed between the first look and the claim
    if (d != null) {
      e.unclaim(mine);
      return CompletableFuture.completedFuture(d);
    }
    return renew(e, key, permits, mine);
  }

  private CompletableFuture<Decision> engine(String key, long permits) {
    counters.engine.increment();
    return store.tryAcquireAsync(key, permits).toCompletableFuture();
  }

  /** Holding the token: closes the slice, returns its rest, leases the next one. */
  private CompletableFuture<Decision> renew(KeyLease e, String key, long permits,
      CompletableFuture<Void> mine) {
    CompletableFuture<Decision> out = new CompletableFuture<>();
    try {
      long now = clock.millis();
      Slice old = e.slice;
      long unspent = old.close();
      long target = size(e, old, unspent, permits, now);
      CompletableFuture<Void> returned = unspent > 0 ? giveBack(key, old, unspent) : DONE;
      returned.thenCompose(v -> {
        long sent = clock.millis();
        if (target == permits) {
          // a slice of just the request: tryAcquire decides the same, on the engine's fast path
          return store.tryAcquireAsync(key, permits).toCompletableFuture()
              .thenApply(d -> spent(e, permits, sent, d));
        }
        return store.leaseAsync(key, permits, target).toCompletableFuture()
            .thenCompose(g -> g.isPresent()
                ? CompletableFuture.completedFuture(install(key, e, permits, sent, g.get()))
                : turnOff(e, key, permits));
      }).whenComplete((d, x) -> {
        e.unclaim(mine);
        if (x != null) {
          out.completeExceptionally(x);
        } else {
          out.complete(d);
        }
      });
    } catch (RuntimeException x) {
      e.unclaim(mine);
      out.completeExceptionally(x);
    }
    return out;
  }

  /** The permits to ask for: see the design note. */
  private long size(KeyLease e, Slice old, long unspent, long permits, long now) {
    if (old.granted == 0) {
      return permits;
    }
    long life = lifetimes.at(now + (old.atMillis - old.sentMillis)); // the engine's now, about
    if (life <= 0) {
      return permits;
    }
    double wanted;
    if (old.releaseId == null) { // a plain decision: lease once the streak shows a hot key
      if (e.streak < MIN_STREAK || now - e.streakStart > lifetimes.shortest()) {
        return permits;
      }
      wanted = Math.ceil((double) e.streak * life / Math.max(1, now - e.streakStart));
    } else {
      long used = old.granted - unspent;
      long elapsed = Math.max(1, now - old.sentMillis);
      wanted = Math.ceil((double) used * life / elapsed);
      if (unspent == 0 && now < old.deadline) {
        wanted = Math.max(wanted, 2.0 * old.granted); // ran out early: the rate is climbing
      }
    }
    double cap = Math.min(maxSlice, Math.floor(maxShare * (old.serverRemaining + unspent)));
    return Math.max(permits, (long) Math.min(wanted, cap));
  }

  /** A grant: its permits less the holder's become the key's slice. */
  private Decision install(String key, KeyLease e, long permits, long sent, Grant g) {
    counters.engine.increment();
    e.streakStart = Long.MIN_VALUE; // leasing now: a later plain decision starts a new streak
    Decision d = g.decision();
    long life = lifetimes.at(g.atMillis());
    if (g.permits() == 0) {
      e.slice = Slice.NONE; // a denial is not kept: the next request asks the engine
      return d;
    }
    counters.leases.increment();
    counters.leasedPermits.add(g.permits());
    leased.add(key);
    long left = g.permits() - permits;
    e.slice = Slice.grant(g.permits(), left, g.atMillis(), sent, sent + life, d.remaining(),
        idPrefix + ids.incrementAndGet(), g);
    return Decision.allowed(left + d.remaining());
  }

  /**
   * A plain decision the holder took instead of a lease of just {@code permits}: allowed, it
   * adds to the key's streak and leaves a slice with nothing to spend, so the next request
   * knows to size its lease from the streak.
   */
  private Decision spent(KeyLease e, long permits, long sent, Decision d) {
    counters.engine.increment();
    if (d.allowed()) {
      if (e.streakStart == Long.MIN_VALUE || sent - e.streakStart > lifetimes.shortest()) {
        e.streakStart = sent; // a new streak
        e.streak = 0;
      }
      e.streak += permits;
    }
    e.slice = d.allowed()
        ? Slice.grant(permits, 0, sent, sent, sent + lifetimes.at(sent), d.remaining(), null,
            null)
        : Slice.NONE;
    return d;
  }

  /** The engine cannot lease: this limiter stops trying, and the engine decides. */
  private CompletableFuture<Decision> turnOff(KeyLease e, String key, long permits) {
    if (!off) {
      off = true;
      LOG.log(System.Logger.Level.WARNING, "limiter ''{0}'': this engine cannot lease; leasing"
          + " is off and every request is decided by the engine", name);
    }
    e.slice = Slice.NONE;
    return engine(key, permits);
  }

  /** Returns {@code unspent} permits of {@code s}; completes normally even when that fails. */
  private CompletableFuture<Void> giveBack(String key, Slice s, long unspent) {
    counters.returns.increment();
    counters.returnedPermits.add(unspent);
    // only a leased slice has permits to return, and it holds the engine's grant
    return Stages.call(() -> store.releaseAsync(key, unspent, s.grant, s.releaseId))
        .handle((v, x) -> {
          if (x != null) {
            counters.failedReturns.increment();
          }
          return null;
        });
  }

  // ---- expiry -------------------------------------------------------------------------------

  /** Ends expired leases (returning their rest) and drops keys idle since. */
  void sweep() {
    returnExpired();
    retireIdle();
  }

  /**
   * Closes the expired slices of the keys that leased, returning their unspent permits. Only
   * those keys are visited (a key's plain decisions leave nothing to return), so a table of
   * 10,000 keys seen now and then costs this frequent sweep nothing.
   */
  private void returnExpired() {
    long now = clock.millis();
    for (String key : leased) {
      KeyLease e = keys.get(key);
      if (e == null) {
        leased.remove(key);
        continue;
      }
      if (now < e.slice.deadline) {
        continue;
      }
      CompletableFuture<Void> mine = e.claim();
      if (mine == null) {
        continue;
      }
      Slice s = e.slice;
      CompletableFuture<Void> done = DONE;
      if (now >= s.deadline) {
        leased.remove(key); // under the token: a new grant's install adds it again after this
        long unspent = s.close();
        if (unspent > 0) {
          done = giveBack(key, s, unspent);
        }
      }
      done.whenComplete((v, x) -> e.unclaim(mine));
    }
  }

  /** Drops keys with nothing to return whose slice ended RETIRE_MILLIS ago (or never was). */
  private void retireIdle() {
    long now = clock.millis();
    for (Map.Entry<String, KeyLease> entry : keys.entrySet()) {
      KeyLease e = entry.getValue();
      if (!idle(e.slice, now)) {
        continue; // no token taken for the keys in use
      }
      CompletableFuture<Void> mine = e.claim();
      if (mine == null) {
        continue;
      }
      if (idle(e.slice, now)) {
        e.retired = true;
        keys.remove(entry.getKey(), e);
      }
      e.unclaim(mine);
    }
  }

  private static boolean idle(Slice s, long now) {
    return now >= s.deadline && s.left() <= 0
        && (s.deadline == Long.MIN_VALUE || now - s.deadline >= RETIRE_MILLIS);
  }

  /** Keys this node holds leasing state for (for tests). */
  int trackedKeys() {
    return keys.size();
  }

  /**
   * Stops sweeping and returns every slice's unspent permits, waiting at most
   * {@code timeoutMillis} for the engine to answer.
   */
  public void close(long timeoutMillis) {
    if (sweep != null) {
      sweep.cancel(false);
      retire.cancel(false);
    }
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (Map.Entry<String, KeyLease> entry : keys.entrySet()) {
      Slice s = entry.getValue().slice;
      long unspent = s.close();
      if (unspent > 0) {
        calls.add(giveBack(entry.getKey(), s, unspent));
      }
    }
    try {
      CompletableFuture.allOf(calls.toArray(new CompletableFuture[0]))
          .get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException x) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException x) {
      // what did not come back is lost to the window, never spent
    }
  }

  /** {@link #close(long)} with 1 s. */
  @Override
  public void close() {
    close(1_000);
  }

  // ---- the rest goes to the engine ----------------------------------------------------------

  /**
   * What {@link #tryAcquire} would answer now: from the slice when it answers, else the
   * engine's peek (which counts this node's unspent slices as spent).
   */
  @Override
  public Optional<Decision> peek(String key, long permits) {
    KeyLease e = off ? null : keys.get(key);
    if (e != null) {
      Slice s = e.slice;
      long now = clock.millis();
      long left = s.left();
      if (now < s.deadline && left >= permits) {
        return Optional.of(Decision.allowed(left - permits + s.serverRemaining));
      }
    }
    return store.peek(key, permits);
  }

  @Override
  public Optional<List<TopKey>> topKeys(int n, boolean denied) {
    return store.topKeys(n, denied);
  }

  @Override
  public boolean holdsState(String key) {
    return store.holdsState(key);
  }

  /** Ends expired leases now, then the engine's own clean-up. */
  @Override
  public void cleanUp() {
    sweep();
    store.cleanUp();
  }

  @Override
  public Optional<Grant> lease(String key, long minPermits, long maxPermits) {
    return store.lease(key, minPermits, maxPermits);
  }

  @Override
  public CompletionStage<Optional<Grant>> leaseAsync(String key, long minPermits,
      long maxPermits) {
    return store.leaseAsync(key, minPermits, maxPermits);
  }

  @Override
  public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
      String releaseId) {
    return store.releaseAsync(key, permits, atMillis, releaseId);
  }

  @Override
  public CompletionStage<Void> releaseAsync(String key, long permits, Grant grant,
      String releaseId) {
    return store.releaseAsync(key, permits, grant, releaseId);
  }

  @Override
  public CompletionStage<Void> replayAsync(String key, long permits, long atMillis,
      String replayId) {
    return store.replayAsync(key, permits, atMillis, replayId);
  }

  private static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException x) {
      Throwable cause = x.getCause() != null ? x.getCause() : x;
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new WindowpaneException(cause.toString(), cause);
    }
  }

  @Override
  public String toString() {
    return "Leasing[" + name + ", " + quota + "]";
  }
}
