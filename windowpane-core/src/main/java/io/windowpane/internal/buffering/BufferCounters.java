package io.windowpane.internal.buffering;

import io.windowpane.BufferStats;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A buffering store's counters, and its failure log: one WARNING per burst of failed flushes
 * (the first failure after a success), so a backend outage logs once, not per key per round.
 */
final class BufferCounters {

  private static final System.Logger LOG = System.getLogger("io.windowpane.buffering");

  final LongAdder flushes = new LongAdder();
  final LongAdder flushedEvents = new LongAdder();
  final LongAdder local = new LongAdder();
  final LongAdder engine = new LongAdder();
  final LongAdder lost = new LongAdder();
  private final AtomicBoolean failing = new AtomicBoolean();

  void flushed(long events) {
    flushes.increment();
    flushedEvents.add(events);
    failing.set(false);
  }

  void failed(String name, String key, long events, Throwable cause) {
    lost.add(events);
    if (failing.compareAndSet(false, true)) {
      LOG.log(System.Logger.Level.WARNING, "''{0}'': a flush of {1} buffered events for key"
          + " ''{2}'' failed; they are lost (counted in lostEvents), further failures are not"
          + " logged until a flush succeeds: {3}", name, events, key, String.valueOf(cause));
    }
  }

  BufferStats snapshot() {
    return new BufferStats(flushes.sum(), flushedEvents.sum(), local.sum(), engine.sum(),
        lost.sum());
  }
}
