package io.windowpane.bench.stats;

import io.windowpane.ManualClock;
import java.util.concurrent.atomic.AtomicLong;

/*
 * Design note: how the statistics benchmarks hold a window at a chosen population without
 * waiting for real time.
 *
 * Time is a ManualClock that moves with the events, never with the wall clock. The traffic is
 * "population events per key per window W, spread evenly". Before measurement, prefill() records
 * `windows` windows of it in small batches (1000 per window: 60 ms apart for 60 s), each at its
 * instant on the clock, ending at T0: a window at T0 holds exactly `population` values per key.
 * During measurement the clock moves in steps of W / STEPS_PER_WINDOW (600 ms for 60 s), one
 * step per eventsPerStep = population x keys / 100 events; each call first moves the clock on
 * if its step is due, then records at the clock's time. With one caller the population of
 * (t - W, t] stays in [population - eventsPerStep, population], within 1 %; with T callers each
 * moving the clock every eventsPerStep of its own events it stays within about T x eventsPerStep
 * of that (the benchmarks check it).
 *
 * Why this and not real time: a 60 s window of 1,000,000 events would take 60 s to fill, and the
 * measured calls, made at millions per second, would pile up far beyond the population; here the
 * measured calls replace expired values as fast as they are made, so a call at 1,000,000 always
 * sees a window of 1,000,000. Time is compressed uniformly: a pane changes every
 * population / panes events, as it would in real time at that rate, so the costs that come with
 * time (a new pane, expired values) are paid at their real frequency per event.
 *
 * Why steps of 1 % of the window and not finer: the clock is one shared word that every call
 * reads; moving it every few calls (every 10 at population 10,000 with 1,000 steps) would make
 * it a cache line bouncing between the benchmark threads, a cost of the benchmark and not of any
 * design (expected from how caches work, not sized here). One write per 100 calls at 10,000
 * keeps that small, and a 600 ms step is still finer than the panes of the windows measured
 * (1 s for 60 panes, 5 s for 12).
 */

/**
 * The traffic of a statistics benchmark: {@code population} values per key per window of
 * {@code windowMillis}, spread evenly over time and over {@code keys} keys, on a
 * {@link ManualClock} that moves with the events. Immutable; {@link Shared} is thread-safe.
 */
public final class WindowTraffic {

  /** Steps the clock takes per window in the measured phase: 600 ms each for a 60 s window. */
  public static final int STEPS_PER_WINDOW = 100;

  /** Prefill batches per window and key, for one key: 60 ms apart for a 60 s window. */
  public static final int PREFILL_BATCHES_PER_WINDOW = 1000;

  /** Where prefill starts: 2026-01-01T00:00:00Z. */
  public static final long START_MILLIS = 1_767_225_600_000L;

  private final long windowMillis;
  private final long population;
  private final int keys;

  /**
   * @param windowMillis the window, a multiple of {@value #PREFILL_BATCHES_PER_WINDOW} ms
   * @param population values per key in one window; {@code population x keys} a multiple of
   *     {@value #STEPS_PER_WINDOW}
   * @param keys how many keys share the traffic
   */
  public WindowTraffic(long windowMillis, long population, int keys) {
    if (windowMillis < PREFILL_BATCHES_PER_WINDOW
        || windowMillis % PREFILL_BATCHES_PER_WINDOW != 0) {
      throw new IllegalArgumentException("windowMillis must be a positive multiple of "
          + PREFILL_BATCHES_PER_WINDOW + ", was " + windowMillis);
    }
    if (population < 1 || keys < 1 || population * keys % STEPS_PER_WINDOW != 0) {
      throw new IllegalArgumentException("population x keys must be a positive multiple of "
          + STEPS_PER_WINDOW + ", was " + population + " x " + keys);
    }
    this.windowMillis = windowMillis;
    this.population = population;
    this.keys = keys;
  }

  public long windowMillis() {
    return windowMillis;
  }

  public long population() {
    return population;
  }

  public int keys() {
    return keys;
  }

  /** How far the clock moves per step: {@code W / 100}. */
  public long stepMillis() {
    return windowMillis / STEPS_PER_WINDOW;
  }

  /** Events (over all keys) per step of the clock. */
  public long eventsPerStep() {
    return population * keys / STEPS_PER_WINDOW;
  }

  /** The clock's time when a prefill of {@code windows} windows has ended. */
  public long endOfPrefill(int windows) {
    return START_MILLIS + windows * windowMillis;
  }

  /** Receives prefill batches; {@link #endOfBatch} after every key's batch of one instant. */
  public interface Batch {
    /** Records {@code values} for key number {@code key} at {@code timeMillis} (the clock's). */
    void accept(int key, long timeMillis, double[] values) throws Exception;

    /** Called once all keys got their values of one instant (to wait for async calls). */
    default void endOfBatch() throws Exception {}
  }

  /**
   * Batches per window and key for a prefill of {@code keys} keys: 1000 for one key, fewer for
   * many (down to 60, one a second for 60 s), so a prefill of 1,000 keys makes 60,000 calls, not
   * a million.
   */
  public static int prefillBatches(int keys) {
    return Math.max(60, PREFILL_BATCHES_PER_WINDOW / keys);
  }

  /**
   * Records {@code windows} windows of traffic in {@code batchesPerWindow} batches per window
   * and key, batch b at {@code START_MILLIS + (b + 1) x W / batchesPerWindow} with the clock set
   * there first; values come from {@code values} in order, each key starting at its own offset.
   * Afterwards the clock reads {@link #endOfPrefill}.
   */
  public void prefill(ManualClock clock, int windows, int batchesPerWindow, LatencyValues values,
      Batch sink) throws Exception {
    if (windows < 1 || batchesPerWindow < 1 || batchesPerWindow > population) {
      throw new IllegalArgumentException("windows >= 1 and 1 <= batchesPerWindow <= population"
          + " expected, were " + windows + ", " + batchesPerWindow);
    }
    long[] next = new long[keys];
    for (int k = 0; k < keys; k++) {
      next[k] = (long) k * 7919; // a prime stride: keys do not all see the same values
    }
    for (int b = 0; b < windows * batchesPerWindow; b++) {
      int inWindow = b % batchesPerWindow;
      long time = START_MILLIS + (b + 1) * windowMillis / batchesPerWindow;
      int count = (int) ((inWindow + 1) * population / batchesPerWindow
          - inWindow * population / batchesPerWindow);
      clock.set(time);
      for (int k = 0; k < keys; k++) {
        for (int done = 0; done < count; ) { // a batch call takes at most 10,000 values
          int n = Math.min(count - done, MAX_BATCH);
          sink.accept(k, time, values.slice(next[k], n));
          next[k] += n;
          done += n;
        }
      }
      sink.endOfBatch();
    }
  }

  /** Most values one batch call accepts ({@code recordAll}). */
  static final int MAX_BATCH = 10_000;

  /**
   * The measured phase's clock for many threads sharing one counter (an atomic increment per
   * event; right for the Redis benchmarks, where a call costs far more than that).
   */
  public Shared shared(ManualClock clock) {
    return new Shared(clock, eventsPerStep(), stepMillis());
  }

  /** A clock driver shared by every caller thread. Thread-safe. */
  public static final class Shared {
    private final ManualClock clock;
    private final long eventsPerStep;
    private final long stepMillis;
    private final AtomicLong events = new AtomicLong();

    Shared(ManualClock clock, long eventsPerStep, long stepMillis) {
      this.clock = clock;
      this.eventsPerStep = eventsPerStep;
      this.stepMillis = stepMillis;
    }

    /**
     * One event: moves the clock a step on if one is due (on the first event and every
     * {@code eventsPerStep} after) and returns the event's number, from 0.
     */
    public long next() {
      long e = events.getAndIncrement();
      if (e % eventsPerStep == 0) {
        clock.advance(stepMillis);
      }
      return e;
    }
  }
}
