package io.windowpane.internal.local;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.MillisClock;
import io.windowpane.Quota;
import io.windowpane.spi.Grant;
import io.windowpane.spi.LimiterStore;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A rate limiter on the local engine: one window per limit per key. A request reserves in each
 * limit in turn (recursively, so no array is allocated), commits all of them when every one
 * fits, and cancels the ones it made on the first that does not.
 *
 * <p>A lease reads every window's count at one instant, takes g = the least room (capped at
 * max) and reserves g in every limit the same way, lock-free: when a concurrent request took
 * room meanwhile the reservation is refused whole, and the lease recomputes a fresh (smaller) g,
 * at most {@link #LEASE_ATTEMPTS} times before deciding {@code minPermits} as a plain
 * tryAcquire. A release takes permits out of each window where the grant put them
 * ({@link Window#release}); its ids are kept in {@link ReleaseIds}.
 *
 * <p>Changed permits ({@link #withQuota}): the new store shares the key table and the release
 * ids, so every window keeps its counts and is decided against the new permits from the next
 * call; keys created afterwards are sized for the new permits ({@link Sizing}). Windows made for
 * the old permits stay correct under the new ones: a pane window whose permits were lowered
 * makes a hot pane exact before its stripes spend ({@link PaneWindow}), and a log ring sized for
 * fewer permits than the new ones lets its newest entry absorb events once full, which keeps
 * them counted a little longer (stricter, never looser) until the key's state expires.
 */
final class LocalLimiterStore implements LimiterStore {

  private final MillisClock clock;
  private final KeyTable table;
  private final Limit[] limits;
  private final long[] permits;
  private final long smallestPermits;
  private final ReleaseIds releases;
  private final Sizing sizing;

  /** Grants computed and refused by a race before a lease decides minPermits alone. */
  static final int LEASE_ATTEMPTS = 8;

  /** A new store over {@code table} (for tests: the table makes its keys' windows itself). */
  LocalLimiterStore(MillisClock clock, KeyTable table, Quota quota) {
    this(clock, table, quota, new Sizing(quota));
  }

  /** A new store over {@code table}, whose new keys {@code sizing} sizes. */
  LocalLimiterStore(MillisClock clock, KeyTable table, Quota quota, Sizing sizing) {
    this(clock, table, quota, new ReleaseIds(quota.expiryMillis()), sizing);
  }

  private LocalLimiterStore(MillisClock clock, KeyTable table, Quota quota, ReleaseIds releases,
      Sizing sizing) {
    this.clock = clock;
    this.table = table;
    this.smallestPermits = quota.smallestPermits();
    this.releases = releases;
    this.sizing = sizing;
    this.limits = quota.limits().toArray(new Limit[0]);
    this.permits = new long[limits.length];
    for (int i = 0; i < limits.length; i++) {
      permits[i] = limits[i].permits();
    }
  }

  /**
   * This store's keys decided against {@code quota}, whose limits differ from this store's only
   * in permits and names: same table, same release ids; new keys are sized for {@code quota}.
   */
  LocalLimiterStore withQuota(Quota quota) {
    sizing.quota = quota;
    return new LocalLimiterStore(clock, table, quota, releases, sizing);
  }

  /** The quota a new key's windows are made for: the latest one a store of the table got. */
  static final class Sizing {
    volatile Quota quota;

    Sizing(Quota quota) {
      this.quota = quota;
    }
  }

  @Override
  public boolean tryConsume(String key, long n) {
    return tryConsume(key, n, clock.millis());
  }

  /** {@link #tryConsume(String, long)} at {@code now}, read once by the caller. */
  boolean tryConsume(String key, long n, long now) {
    for (;;) {
      KeyState state = table.forWrite(key, now);
      if (!acquire(state.windows, 0, now, n)) {
        return false;
      }
      if (state.touch(now)) {
        return true;
      }
      table.forget(key, state);
    }
  }

  @Override
  public Decision tryAcquire(String key, long n) {
    return tryAcquire(key, n, clock.millis());
  }

  /** {@link #tryAcquire(String, long)} at {@code now}, read once by the caller. */
  Decision tryAcquire(String key, long n, long now) {
    for (;;) {
      KeyState state = table.forWrite(key, now);
      Window[] windows = state.windows;
      if (acquire(windows, 0, now, n)) {
        if (!state.touch(now)) {
          table.forget(key, state);
          continue;
        }
        return Decision.allowed(remaining(windows, now));
      }
      long remaining = Long.MAX_VALUE;
      long wait = -1;
      int by = 0;
      for (int i = 0; i < windows.length; i++) {
        remaining = Math.min(remaining, windows[i].remaining(now, permits[i]));
        long retry = windows[i].retryAfter(now, n, permits[i]);
        if (retry > wait) {
          wait = retry;
          by = i;
        }
      }
      return Decision.denied(remaining, limits[by], wait);
    }
  }

  private long remaining(Window[] windows, long now) {
    long remaining = Long.MAX_VALUE;
    for (int i = 0; i < windows.length; i++) {
      remaining = Math.min(remaining, windows[i].remaining(now, permits[i]));
    }
    return remaining;
  }

  @Override
  public Optional<Grant> lease(String key, long minPermits, long maxPermits) {
    return Optional.of(lease(key, minPermits, maxPermits, clock.millis()));
  }

  /** {@link #lease(String, long, long)} at {@code now}, read once by the caller. */
  Grant lease(String key, long minPermits, long maxPermits, long now) {
    for (int attempt = 0; attempt < LEASE_ATTEMPTS; attempt++) {
      KeyState state = table.forWrite(key, now);
      Window[] windows = state.windows;
      long g = maxPermits;
      for (int i = 0; i < windows.length && g >= minPermits; i++) {
        g = Math.min(g, permits[i] - windows[i].count(now));
      }
      if (g < minPermits) {
        break; // the denial (or a room freed meanwhile) is tryAcquire(minPermits)'s
      }
      if (acquire(windows, 0, now, g)) {
        if (state.touch(now)) {
          return new Grant(g, now, Decision.allowed(remaining(windows, now)));
        }
        table.forget(key, state);
      }
    }
    Decision d = tryAcquire(key, minPermits, now);
    return new Grant(d.allowed() ? minPermits : 0, now, d);
  }

  @Override
  public CompletionStage<Optional<Grant>> leaseAsync(String key, long minPermits,
      long maxPermits) {
    return CompletableFuture.completedFuture(lease(key, minPermits, maxPermits));
  }

  /**
   * Takes the permits out of every window that still holds {@code atMillis}. The id is
   * remembered first, whether or not the key has state, so a repeat never reaches a later state
   * of the key. A release is not an event: it does not keep the key alive.
   */
  @Override
  public CompletionStage<Void> releaseAsync(String key, long n, long atMillis,
      String releaseId) {
    release(key, n, atMillis, releaseId, clock.millis());
    return CompletableFuture.completedFuture(null);
  }

  /** {@link #releaseAsync} at {@code now}, read once by the caller. */
  void release(String key, long n, long atMillis, String releaseId, long now) {
    if (!releases.firstTime(key, releaseId, atMillis, now)) {
      return;
    }
    KeyState state = table.forRead(key, now);
    if (state == null || atMillis < state.createdMillis()) {
      return; // no grant of atMillis is in this state: it was made later (after an eviction)
    }
    Window[] windows = state.windows;
    for (int i = 0; i < windows.length; i++) {
      windows[i].release(now, atMillis, n);
    }
  }

  /**
   * A limiter key's state: {@link KeyState} plus its creation time, so that a release of a
   * grant made before it (in a state the table has since evicted) changes nothing. A grant whose
   * clock lagged behind the state's creator is then not released either: stricter, never looser.
   */
  static final class State extends KeyState {
    private final long createdMillis;

    State(Window[] windows, long now) {
      super(windows, now);
      this.createdMillis = now;
    }

    @Override
    long createdMillis() {
      return createdMillis;
    }
  }

  /** Reserves in windows[i..] and commits all, or reserves nothing. */
  private boolean acquire(Window[] windows, int i, long now, long n) {
    if (i == windows.length) {
      return true;
    }
    Window window = windows[i];
    long receipt = window.reserve(now, n, permits[i]);
    if (receipt == Window.DENIED) {
      return false;
    }
    if (acquire(windows, i + 1, now, n)) {
      window.commit(now, n, receipt);
      return true;
    }
    window.cancel(now, n, receipt);
    return false;
  }

  /**
   * What {@link #tryAcquire} would answer now, from reads only: a key without state is answered
   * as a fresh one, and none is created. Each limit fits when its {@code retryAfter} is 0, which
   * is the check {@code reserve} makes; the remaining of an allowed answer is what the permits
   * would leave. Reads may move a window's head to now (as any read does), never a count.
   */
  @Override
  public Optional<Decision> peek(String key, long n) {
    long now = clock.millis();
    KeyState state = table.forRead(key, now);
    if (state == null) {
      return Optional.of(Decision.allowed(smallestPermits - n));
    }
    Window[] windows = state.windows;
    long remaining = Long.MAX_VALUE;
    long wait = 0;
    int by = -1;
    for (int i = 0; i < windows.length; i++) {
      remaining = Math.min(remaining, windows[i].remaining(now, permits[i]));
      long retry = windows[i].retryAfter(now, n, permits[i]);
      if (retry > 0 && (by < 0 || retry > wait)) {
        wait = retry;
        by = i;
      }
    }
    if (by < 0) {
      return Optional.of(Decision.allowed(Math.max(0, remaining - n)));
    }
    return Optional.of(Decision.denied(remaining, limits[by], wait));
  }

  @Override
  public boolean holdsState(String key) {
    return table.forRead(key, clock.millis()) != null;
  }

  @Override
  public void cleanUp() {
    long now = clock.millis();
    table.sweep(now);
    releases.sweep(now);
  }
}
