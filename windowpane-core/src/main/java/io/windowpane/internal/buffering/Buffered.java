package io.windowpane.internal.buffering;

import io.windowpane.BufferStats;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;

/** What a {@code Windowpane} and a window need of a buffering store. */
public interface Buffered extends AutoCloseable {

  /**
   * Sends every pending event now and waits until those calls, and every flush already in
   * flight, have answered (each bounded by the engine's timeout). A failed call's events are
   * lost and counted, not thrown.
   */
  void flush();

  /** The counters since the store was made. */
  BufferStats stats();

  /** Stops the periodic flush, then {@link #flush()}es. Does not close the engine's store. */
  @Override
  void close();

  /** Waits for every stage, ignoring failures (their callbacks counted them). */
  static void awaitAll(Collection<? extends CompletableFuture<?>> stages) {
    for (CompletableFuture<?> f : stages) {
      try {
        f.join();
      } catch (RuntimeException e) {
        // counted as lost by the stage's own callback
      }
    }
  }
}
