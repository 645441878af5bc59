package io.windowpane;

import io.windowpane.internal.buffering.Buffered;
import io.windowpane.spi.Checks;
import io.windowpane.spi.StatsStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Sliding-window statistics per key: "sum of payment amounts for this card in the last 10
 * minutes", "p99 latency of this merchant over the last minute". Thread-safe.
 *
 * <pre>{@code
 * WindowStats latency = wp.stats("latency", StatsSpec.histogram(Duration.ofMinutes(1), 12));
 * latency.record("merchant:7", 42.5);
 * Summary s = latency.summary("merchant:7");
 * double p99 = s.quantile(0.99);   // within 1% of the true p99
 * }</pre>
 *
 * <p>Values are finite doubles: negative, zero and positive values are all accepted (see
 * {@link LogBuckets} for how each is bucketed); NaN and infinities are refused. Arguments are
 * checked before anything happens: keys are 1 to 256 characters, batches 1 to 10,000 values or
 * keys; a bad argument throws {@link IllegalArgumentException}, also from the async forms
 * (synchronously, before a stage exists), and records nothing. Backend failures throw (or
 * complete the stage with) a {@link WindowpaneException}. A summary is read without blocking
 * writers; one taken while values are being recorded may include some of them and not others.
 */
public final class WindowStats {

  private final String name;
  private final StatsSpec spec;
  private final StatsStore store;
  private final LateEvents late;

  /** {@code store} is the engine's, or a buffering store over it when {@code spec} buffers. */
  WindowStats(String name, StatsSpec spec, StatsStore store) {
    this.name = name;
    this.spec = spec;
    this.store = store;
    this.late = new LateEvents(spec.window());
  }

  /**
   * Sends this node's buffered values to the engine now and waits until those calls, and the
   * flushes already in flight, have answered (each bounded by the engine's timeout); a call that
   * fails loses its values, counted in {@link BufferStats#lostEvents()}, and does not throw. For
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

  /** Records one value now. */
  public void record(String key, double value) {
    Checks.key(key);
    store.record(key, Checks.finite("value", value));
  }

  /** Records several values now, at the same instant, in one engine call. */
  public void recordAll(String key, double... values) {
    Checks.key(key);
    store.record(key, Checks.finite(values));
  }

  /**
   * Records, for every i, {@code values.get(i)} under {@code keys.get(i)} now: a batch of
   * independent records, sent in as few engine calls as the engine can (Redis: one call per
   * node). Waits for every item; if any failed (an exact window past its bound:
   * {@link CapacityExceededException}), throws the first failure, the other items recorded.
   * Every key and value is checked before anything is sent: a bad one names its item.
   */
  public void recordAll(List<String> keys, List<double[]> values) {
    RuntimeException first = null;
    for (CompletionStage<Void> stage : recordAllAsync(keys, values)) {
      try {
        stage.toCompletableFuture().join();
      } catch (java.util.concurrent.CompletionException e) {
        if (first == null) {
          first = e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause() : e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /**
   * {@link #recordAll(List, List)} without blocking the caller: one stage per item, in order,
   * each completing when its item is recorded or failing alone.
   */
  public List<CompletionStage<Void>> recordAllAsync(List<String> keys, List<double[]> values) {
    List<double[]> checked = checkedItems(keys, values);
    return store.recordAllAsync(List.copyOf(keys), checked);
  }

  /**
   * Records {@code value} observed at {@code atMillis} (epoch ms, event time): it lands in the
   * pane (exact window: the position) of its own time, so the summary is what it would have been
   * had the values arrived in order. Judged by the spec's {@link EventTime} rules at the
   * engine's now, as {@link WindowCounter#add(String, long, long)} is: a late value is refused
   * with {@link EventTimeException} or dropped and counted in {@link #lateValuesDropped()}; one
   * too far ahead is refused; either way nothing is recorded. Buffering is bypassed.
   */
  public void record(String key, double value, long atMillis) {
    LateEvents.join(recordAsync(key, value, atMillis));
  }

  /** {@link #record(String, double, long)} without blocking the caller. */
  public CompletionStage<Void> recordAsync(String key, double value, long atMillis) {
    Checks.key(key);
    return recordAt(key, new double[] {Checks.finite("value", value)}, atMillis);
  }

  /** Records several values observed at {@code atMillis}, at that instant, in one engine call. */
  public void recordAllAt(String key, long atMillis, double... values) {
    LateEvents.join(recordAllAtAsync(key, atMillis, values));
  }

  /** {@link #recordAllAt(String, long, double...)} without blocking the caller. */
  public CompletionStage<Void> recordAllAtAsync(String key, long atMillis, double... values) {
    Checks.key(key);
    return recordAt(key, Checks.finite(values), atMillis);
  }

  /**
   * {@link #recordAll(List, List)} at event time {@code atMillis}: each item judged on its own;
   * waits for every item and throws the first failure, the other items recorded.
   */
  public void recordAll(List<String> keys, List<double[]> values, long atMillis) {
    RuntimeException first = null;
    for (CompletionStage<Void> stage : recordAllAsync(keys, values, atMillis)) {
      try {
        LateEvents.join(stage);
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** {@link #recordAll(List, List, long)} without blocking the caller: one stage per item. */
  public List<CompletionStage<Void>> recordAllAsync(List<String> keys, List<double[]> values,
      long atMillis) {
    List<double[]> checked = checkedItems(keys, values);
    List<CompletionStage<io.windowpane.spi.EventTimeResult>> sent = store
        .recordAllAtAsync(List.copyOf(keys), checked, atMillis, spec.eventTime().maxAheadMillis());
    List<CompletionStage<Void>> out = new java.util.ArrayList<>(sent.size());
    for (int i = 0; i < sent.size(); i++) {
      int n = checked.get(i).length;
      out.add(late.resolveAsync(sent.get(i), atMillis, n).thenApply(c -> (Void) null));
    }
    return out;
  }

  /** Late values this window dropped in this process ({@link EventTime#droppingLate()}). */
  public long lateValuesDropped() {
    return late.dropped();
  }

  private CompletionStage<Void> recordAt(String key, double[] values, long atMillis) {
    return late.resolveAsync(store.recordAtAsync(key, values, atMillis,
        spec.eventTime().maxAheadMillis()), atMillis, values.length).thenApply(c -> (Void) null);
  }

  private static List<double[]> checkedItems(List<String> keys, List<double[]> values) {
    Checks.keys(keys);
    if (values == null || values.size() != keys.size()) {
      throw new IllegalArgumentException("values must hold one array per key (" + keys.size()
          + "), was " + (values == null ? "null" : values.size()));
    }
    List<double[]> checked = new java.util.ArrayList<>(values.size());
    for (int i = 0; i < values.size(); i++) {
      try {
        checked.add(Checks.finite(values.get(i)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("values[" + i + "]: " + e.getMessage(), e);
      }
    }
    return checked;
  }

  /** The window's statistics now; an empty summary for a key never seen or expired. */
  public Summary summary(String key) {
    return store.summary(Checks.key(key));
  }

  /** {@link #summary} for each key, in order, in one engine call. */
  public List<Summary> summaryAll(List<String> keys) {
    return store.summaryAll(Checks.keys(keys));
  }

  /** {@link #record(String, double)} without blocking the caller. */
  public CompletionStage<Void> recordAsync(String key, double value) {
    Checks.key(key);
    return store.recordAsync(key, new double[] {Checks.finite("value", value)});
  }

  /** {@link #recordAll} without blocking the caller. */
  public CompletionStage<Void> recordAllAsync(String key, double... values) {
    Checks.key(key);
    return store.recordAsync(key, Checks.finite(values));
  }

  /** {@link #summary} without blocking the caller. */
  public CompletionStage<Summary> summaryAsync(String key) {
    return store.summaryAsync(Checks.key(key));
  }

  /** {@link #summaryAll} without blocking the caller. */
  public CompletionStage<List<Summary>> summaryAllAsync(List<String> keys) {
    return store.summaryAllAsync(Checks.keys(keys));
  }

  /**
   * The {@code n} keys that recorded the most values over the window (each value counts 1),
   * most first, for a spec with {@link StatsSpec#withTopKeys(int) top keys} on; the bounds of
   * {@link WindowCounter#top(int)} hold with N the values recorded in the window. {@code n} is 1
   * to the spec's counters. Empty when top keys are off or the engine cannot rank keys.
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

  /** The name that namespaces this window's keys. */
  public String name() {
    return name;
  }

  /** The window's shape. */
  public StatsSpec spec() {
    return spec;
  }

  @Override
  public String toString() {
    return "WindowStats[" + name + ", " + spec + "]";
  }
}
