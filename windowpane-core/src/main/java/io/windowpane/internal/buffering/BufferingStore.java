package io.windowpane.internal.buffering;

import io.windowpane.Buffering;
import io.windowpane.TopKey;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.StatsStore;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a counter's and a statistics window's buffering stores share beyond {@link Buffered}: the
 * engine's store of kind {@code S} they buffer for, their per-key entries, and the calls that
 * pass through to the engine ({@code cleanUp}, {@code topKeys}) or only add this node's unsent
 * events to the engine's answer ({@code holdsState}).
 */
abstract class BufferingStore<S, E extends KeyBuffers.Entry> extends Buffered {

  /** How a buffering store reaches the engine's calls that pass through (the SPI's store
   * interfaces share no supertype). */
  record Calls<S>(BiPredicate<S, String> holdsState, Consumer<S> cleanUp,
      BiFunction<S, Integer, Optional<List<TopKey>>> topKeys) {}

  static final Calls<CounterStore> COUNTERS = new Calls<>(CounterStore::holdsState,
      CounterStore::cleanUp, CounterStore::topKeys);
  static final Calls<StatsStore> STATS = new Calls<>(StatsStore::holdsState,
      StatsStore::cleanUp, StatsStore::topKeys);

  final S engine;
  final KeyBuffers<E> entries;
  private final Calls<S> calls;

  BufferingStore(String name, Buffering buffering, S engine, Calls<S> calls,
      Function<String, E> entry) {
    super(name, buffering);
    this.engine = engine;
    this.calls = calls;
    this.entries = new KeyBuffers<>(entry);
  }

  /** Whether this node holds unsent events for the key, or the engine holds state for it. */
  public final boolean holdsState(String key) {
    return entries.holdsEvents(key) || calls.holdsState().test(engine, key);
  }

  /** The engine's clean-up; this node's idle entries go in the flusher's rounds. */
  public final void cleanUp() {
    calls.cleanUp().accept(engine);
  }

  /** The engine's top keys (this node's unsent events are not in them yet). */
  public final Optional<List<TopKey>> topKeys(int n) {
    return calls.topKeys().apply(engine, n);
  }

  /** Keys this node holds an entry for (tests: bounded memory). */
  final int keys() {
    return entries.size();
  }
}
