package io.windowpane.internal.buffering;

import io.windowpane.Buffering;
import io.windowpane.internal.Periodic;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.StatsStore;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code Windowpane}'s buffering windows: makes their stores, runs their periodic flush on
 * one daemon thread ({@code windowpane-buffering}, started by the first buffering window) and
 * flushes them all on {@link #close()}. Thread-safe.
 */
public final class Buffers implements AutoCloseable {

  private Periodic flusher; // guarded by open
  private final List<Buffered> open = new ArrayList<>();

  /** A buffering store over the engine's counter store {@code engine}. */
  public CounterStore counter(String name, CounterStore engine, Buffering buffering) {
    synchronized (open) {
      return keep(new BufferingCounterStore(name, engine, buffering, flusher()));
    }
  }

  /** A buffering store over the engine's statistics store {@code engine}. */
  public StatsStore stats(String name, StatsStore engine, Buffering buffering) {
    synchronized (open) {
      return keep(new BufferingStatsStore(name, engine, buffering, flusher()));
    }
  }

  private Periodic flusher() {
    if (flusher == null) {
      flusher = new Periodic("windowpane-buffering");
    }
    return flusher;
  }

  private <S extends Buffered> S keep(S store) {
    open.add(store);
    return store;
  }

  /**
   * Sends every window's pending events (each call bounded by the engine's timeout), then stops
   * the flusher. Does not close the engine's stores.
   */
  @Override
  public void close() {
    synchronized (open) {
      try {
        for (Buffered b : open) {
          b.close();
        }
      } finally {
        open.clear();
        if (flusher != null) {
          flusher.close();
          flusher = null;
        }
      }
    }
  }
}
