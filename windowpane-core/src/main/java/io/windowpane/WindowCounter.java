package io.windowpane;

import io.windowpane.internal.buffering.Buffered;
import io.windowpane.spi.Checks;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.EventTimeResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A sliding-window counter: "how many events did this key have in the last W?". Thread-safe.
 *
 * <p>Arguments are checked before anything happens: keys are 1 to 256 characters, {@code n} is
 * 1 to {@value #MAX_ADD}; a bad argument throws {@link IllegalArgumentException}, also from the
 * async forms (synchronously, before a stage exists). Backend failures throw (or complete the
 * stage with) a {@link WindowpaneException}.
 */
public final class WindowCounter {

  /** Most events one {@link #add} may record. */
  public static final long MAX_ADD = Integer.MAX_VALUE;

  private final String name;
  private final WindowSpec spec;
  private final CounterStore store;
  private final LateEvents late;

  /** {@code store} is the engine's, or a buffering store over it when {@code spec} buffers. */
  WindowCounter(String name, WindowSpec spec, CounterStore store) {
    this.name = name;
    this.spec = spec;
    this.store = store;
    this.late = new LateEvents(spec);
  }

  /**
   * Sends this node's buffered events to the engine now and waits until those calls, and the
   * flushes already in flight, have answered (each bounded by the engine's timeout); a call that
   * fails loses its events, counted in {@link BufferStats#lostEvents()}, and does not throw. For
   * tests and shutdown hooks; nothing to do when not buffering.
   */
  public void flush() {
    if (store instanceof Buffered) {
      ((Buffered) store).flush();
    }
  }

  /** The buffering's counters since this window was made; empty when not buffering. */
  public Optional<BufferStats> bufferStats() {
    return store instanceof Buffered ? Optional.of(((Buffered) store).stats()) : Optional.empty();
  }

  /** Records one event now; returns the window count including it. */
  public long add(String key) {
    return store.add(Checks.key(key), 1);
  }

  /** Records {@code n} events now; returns the window count including them. */
  public long add(String key, long n) {
    return store.add(Checks.key(key), checkN(n));
  }

  /**
   * Records one event now, like {@link #add(String)} but without the count: see
   * {@link #record(String, long)}.
   */
  public void record(String key) {
    store.record(Checks.key(key), 1);
  }

  /**
   * Records {@code n} events now, like {@link #add(String, long)} but without returning the
   * count. Every event counts exactly as with {@code add}; what changes is only that nothing is
   * read back, so on the local engine many threads recording on one hot key each write their own
   * stripe instead of all racing for the key's one pane word (an {@code add} must read every
   * other thread's events to return the count, and that is what stops it from scaling). Use it
   * for events you count now and read later; on Redis and etcd it is {@code add} without the
   * reply's use.
   */
  public void record(String key, long n) {
    store.record(Checks.key(key), checkN(n));
  }

  /**
   * Records {@code n} events that happened at {@code atMillis} (epoch ms, event time: a stream's
   * late and out-of-order events) and returns the window count now, including them. The events
   * land in the pane (log position, fixed window) of their own time, so the window holds what it
   * would have held had they arrived in order. Judged by the spec's {@link EventTime} rules at
   * the engine's now: a late event (its pane has left the window) is refused with
   * {@link EventTimeException}, or dropped and counted in {@link #lateEventsDropped()}; one
   * more than {@link EventTime#maxAheadMillis()} ahead is refused; either way nothing is
   * recorded. A buffered window sends event-time adds straight to the engine, bypassing its
   * buffer. Limits have no event-time form: they decide now.
   */
  public long add(String key, long n, long atMillis) {
    return LateEvents.join(addAsync(key, n, atMillis));
  }

  /** {@link #add(String, long, long)} without blocking the caller. */
  public CompletionStage<Long> addAsync(String key, long n, long atMillis) {
    Checks.key(key);
    checkN(n);
    return late.resolveAsync(store.addAtAsync(key, n, atMillis,
        spec.eventTime().maxAheadMillis()), atMillis, n);
  }

  /**
   * {@link #add(String, long, long)} for each key, in order, every key at {@code atMillis};
   * each key is judged on its own, and if any was refused the first refusal is thrown after the
   * others were recorded.
   */
  public List<Long> addAll(List<String> keys, long n, long atMillis) {
    return LateEvents.join(addAllAsync(keys, n, atMillis));
  }

  /** {@link #addAll(List, long, long)} without blocking the caller. */
  public CompletionStage<List<Long>> addAllAsync(List<String> keys, long n, long atMillis) {
    checkN(n);
    List<String> checked = Checks.keys(keys);
    return late.resolveAllAsync(store.addAllAtAsync(checked, n, atMillis,
        spec.eventTime().maxAheadMillis()), atMillis, n)
        .exceptionallyCompose(e -> CompletableFuture.failedFuture(counts(e)));
  }

  /**
   * {@code e}, except that a batch refusal for memory pressure carries each item's window
   * count as a batch of {@code addAll} does ({@link KeyCreationRefusedException#answers()}),
   * where the store's carried each item's event-time result.
   */
  private static Throwable counts(Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    if (!(cause instanceof KeyCreationRefusedException refused) || refused.answers().isEmpty()) {
      return cause;
    }
    List<Object> answers = new ArrayList<>();
    for (Object a : refused.answers().get()) {
      answers.add(a instanceof EventTimeResult r ? Long.valueOf(r.count()) : a);
    }
    return new KeyCreationRefusedException(refused.getMessage(), answers, refused.getCause());
  }

  /** Late events this window dropped in this process ({@link EventTime#droppingLate()}). */
  public long lateEventsDropped() {
    return late.dropped();
  }

  /** The window count now; 0 for a key never seen or expired. */
  public long count(String key) {
    return store.count(Checks.key(key));
  }

  /**
   * {@link #add(String, long)} for each key, in order, in one engine call. A store short of
   * memory (the Redis memory guard) records the items on existing keys and refuses the new
   * ones: a failover chain sends only those to its next member; elsewhere this throws
   * {@link KeyCreationRefusedException} with every item's count in
   * {@link KeyCreationRefusedException#answers()} ({@code null} for the refused items).
   */
  public List<Long> addAll(List<String> keys, long n) {
    checkN(n);
    return store.addAll(Checks.keys(keys), n);
  }

  /** {@link #count} for each key, in order, in one engine call. */
  public List<Long> countAll(List<String> keys) {
    return store.countAll(Checks.keys(keys));
  }

  /** {@link #add(String, long)} without blocking the caller. */
  public CompletionStage<Long> addAsync(String key, long n) {
    return store.addAsync(Checks.key(key), checkN(n));
  }

  /** {@link #count} without blocking the caller. */
  public CompletionStage<Long> countAsync(String key) {
    return store.countAsync(Checks.key(key));
  }

  /** {@link #addAll} without blocking the caller. */
  public CompletionStage<List<Long>> addAllAsync(List<String> keys, long n) {
    checkN(n);
    return store.addAllAsync(Checks.keys(keys), n);
  }

  /** {@link #countAll} without blocking the caller. */
  public CompletionStage<List<Long>> countAllAsync(List<String> keys) {
    return store.countAllAsync(Checks.keys(keys));
  }

  /**
   * The {@code n} keys with the most events over the window, most first, for a spec with
   * {@link WindowSpec#withTopKeys(int) top keys} on: each {@link TopKey#count()} is an upper
   * bound of the key's window count and {@code count - maxError} a lower bound, with
   * {@code maxError <= N / k} (N events in the window, k the spec's counters); every key above
   * N / k is ranked. {@code n} is 1 to the spec's counters. Empty when top keys are off or the
   * engine cannot rank keys (only the local engine can, for now).
   */
  public Optional<List<TopKey>> top(int n) {
    if (spec.topKeys() == 0) {
      return RateLimiter.checkOff(n);
    }
    return store.topKeys((int) Checks.inRange("n", n, 1, spec.topKeys()));
  }

  /** Whether the engine still holds state for {@code key}. */
  public boolean holdsState(String key) {
    return store.holdsState(Checks.key(key));
  }

  /** Drops expired state now. */
  public void cleanUp() {
    store.cleanUp();
  }

  /** The name that namespaces this counter's keys. */
  public String name() {
    return name;
  }

  /** The window. */
  public WindowSpec spec() {
    return spec;
  }

  private static long checkN(long n) {
    return Checks.inRange("n", n, 1, MAX_ADD);
  }

  @Override
  public String toString() {
    return "WindowCounter[" + name + ", " + spec + "]";
  }
}
