package io.windowpane.internal.local;

import io.windowpane.Decision;
import io.windowpane.MillisClock;
import io.windowpane.Summary;
import io.windowpane.TopKey;
import io.windowpane.internal.topkeys.TopKeysRing;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.StatsStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/*
 * Design note: top keys on the local engine are a decorator, built only for a spec that turns
 * them on. A store without top keys is the plain Local*Store, so its hot path has no branch, no
 * field and no call for them. With them, each operation reads the clock once, runs the plain
 * store's operation at that instant and then offers the key to the ring's pane of the same
 * instant: the sketch's panes and the window's panes agree on every event. An event the window
 * refuses (a denied acquire, an exact statistics window past its bound) is not counted as an
 * event; a denied acquire counts 1 in the limiter's denial ring.
 */
/** Local stores that also feed a {@link TopKeysRing}. */
final class TopKeysStores {

  private TopKeysStores() {}

  /** A counter that ranks its keys by events. */
  static final class Counter implements CounterStore {
    private final LocalCounterStore store;
    private final MillisClock clock;
    private final TopKeysRing events;

    Counter(LocalCounterStore store, MillisClock clock, TopKeysRing events) {
      this.store = store;
      this.clock = clock;
      this.events = events;
    }

    @Override
    public long add(String key, long n) {
      long now = clock.millis();
      long count = store.add(key, n, now);
      events.offer(key, n, now);
      return count;
    }

    @Override
    public void record(String key, long n) {
      long now = clock.millis();
      store.record(key, n, now);
      events.offer(key, n, now);
    }

    /** The sketch counts a recorded event at now: an upper bound, as top keys state. */
    @Override
    public CompletionStage<io.windowpane.spi.EventTimeResult> addAtAsync(String key, long n,
        long atMillis, long maxAheadMillis) {
      return Async.call(() -> {
        long now = clock.millis();
        io.windowpane.spi.EventTimeResult r = store.addAt(key, n, atMillis, maxAheadMillis, now);
        if (r.verdict() == io.windowpane.spi.EventTimeResult.Verdict.RECORDED) {
          events.offer(key, n, now);
        }
        return r;
      });
    }

    @Override
    public long count(String key) {
      return store.count(key);
    }

    @Override
    public boolean holdsState(String key) {
      return store.holdsState(key);
    }

    @Override
    public void cleanUp() {
      store.cleanUp();
    }

    @Override
    public Optional<List<TopKey>> topKeys(int n) {
      return Optional.of(events.top(n, clock.millis()));
    }
  }

  /** A limiter that ranks its keys by permits allowed and by requests denied. */
  static final class Limiter implements LimiterStore {
    private final LocalLimiterStore store;
    private final MillisClock clock;
    private final TopKeysRing allowed;
    private final TopKeysRing denied;

    Limiter(LocalLimiterStore store, MillisClock clock, TopKeysRing allowed, TopKeysRing denied) {
      this.store = store;
      this.clock = clock;
      this.allowed = allowed;
      this.denied = denied;
    }

    /** The same table and sketches under {@code quota}'s permits. */
    Limiter withQuota(io.windowpane.Quota quota) {
      return new Limiter(store.withQuota(quota), clock, allowed, denied);
    }

    @Override
    public Decision tryAcquire(String key, long permits) {
      long now = clock.millis();
      Decision d = store.tryAcquire(key, permits, now);
      count(key, permits, d.allowed(), now);
      return d;
    }

    @Override
    public boolean tryConsume(String key, long permits) {
      long now = clock.millis();
      boolean ok = store.tryConsume(key, permits, now);
      count(key, permits, ok, now);
      return ok;
    }

    /** A grant counts its permits as allowed; a grant of 0 counts one denied request. */
    @Override
    public Optional<Grant> lease(String key, long minPermits, long maxPermits) {
      long now = clock.millis();
      Grant g = store.lease(key, minPermits, maxPermits, now);
      count(key, g.permits(), g.permits() > 0, now);
      return Optional.of(g);
    }

    @Override
    public CompletionStage<Optional<Grant>> leaseAsync(String key, long minPermits,
        long maxPermits) {
      return CompletableFuture.completedFuture(lease(key, minPermits, maxPermits));
    }

    /**
     * Passed through; the sketch keeps counting the released permits (a Space-Saving sketch
     * only grows), so a key's count stays an upper bound, as documented for top keys.
     */
    @Override
    public CompletionStage<Void> releaseAsync(String key, long permits, long atMillis,
        String releaseId) {
      return store.releaseAsync(key, permits, atMillis, releaseId);
    }

    private void count(String key, long permits, boolean ok, long now) {
      if (ok) {
        allowed.offer(key, permits, now);
      } else {
        denied.offer(key, 1, now);
      }
    }

    @Override
    public Optional<Decision> peek(String key, long permits) {
      return store.peek(key, permits);
    }

    @Override
    public boolean holdsState(String key) {
      return store.holdsState(key);
    }

    @Override
    public void cleanUp() {
      store.cleanUp();
    }

    @Override
    public Optional<List<TopKey>> topKeys(int n, boolean byDenied) {
      return Optional.of((byDenied ? denied : allowed).top(n, clock.millis()));
    }
  }

  /** A statistics window that ranks its keys by values recorded. */
  static final class Stats implements StatsStore {
    private final LocalStatsStore store;
    private final MillisClock clock;
    private final TopKeysRing values;

    Stats(LocalStatsStore store, MillisClock clock, TopKeysRing values) {
      this.store = store;
      this.clock = clock;
      this.values = values;
    }

    @Override
    public void record(String key, double[] recorded) {
      long now = clock.millis();
      store.record(key, recorded, now);
      values.offer(key, recorded.length, now);
    }

    @Override
    public void record(String key, double value) {
      long now = clock.millis();
      store.record(key, value, now);
      values.offer(key, 1, now);
    }

    /** The sketch counts recorded values at now: an upper bound, as top keys state. */
    @Override
    public CompletionStage<io.windowpane.spi.EventTimeResult> recordAtAsync(String key,
        double[] recorded, long atMillis, long maxAheadMillis) {
      return CounterStore.Async.call(() -> {
        long now = clock.millis();
        io.windowpane.spi.EventTimeResult r = store.recordAt(key, recorded, atMillis,
            maxAheadMillis, now);
        if (r.verdict() == io.windowpane.spi.EventTimeResult.Verdict.RECORDED) {
          values.offer(key, recorded.length, now);
        }
        return r;
      });
    }

    @Override
    public Summary summary(String key) {
      return store.summary(key);
    }

    @Override
    public boolean holdsState(String key) {
      return store.holdsState(key);
    }

    @Override
    public void cleanUp() {
      store.cleanUp();
    }

    @Override
    public Optional<List<TopKey>> topKeys(int n) {
      return Optional.of(values.top(n, clock.millis()));
    }
  }
}
