package io.windowpane;

import io.windowpane.spi.EventTimeResult;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;

/**
 * One window's handling of its engine's event-time verdicts: a late event is refused with
 * {@link EventTimeException} or, when the window's {@link EventTime} drops late events,
 * counted here; an event too far ahead is always refused. The message names the argument and
 * the range the engine allowed at its now.
 */
final class LateEvents {

  private final WindowSpec spec;
  private final LongAdder dropped = new LongAdder();

  LateEvents(WindowSpec spec) {
    this.spec = spec;
  }

  /** Events dropped as late by this window in this process. */
  long dropped() {
    return dropped.sum();
  }

  /**
   * The window count of a recorded result; for a dropped late event the count in the result
   * (the engine's count without it); otherwise throws.
   */
  long resolve(EventTimeResult r, long atMillis, long events) {
    switch (r.verdict()) {
      case RECORDED:
        return r.count();
      case LATE:
        if (spec.eventTime().dropsLate()) {
          dropped.add(events);
          return r.count();
        }
        throw new EventTimeException("atMillis must be at least "
            + EventTimeResult.earliestMillis(spec, r.nowMillis()) + " (the oldest pane of the "
            + spec + " window at the engine's now " + r.nowMillis() + ") and at most now + "
            + spec.eventTime().maxAheadMillis() + " ms; was " + atMillis
            + ", late: nothing recorded", true, atMillis, r.nowMillis());
      default:
        throw new EventTimeException("atMillis must be at most the engine's now "
            + r.nowMillis() + " + maxAhead " + spec.eventTime().maxAheadMillis() + " ms = "
            + (r.nowMillis() + spec.eventTime().maxAheadMillis()) + "; was " + atMillis
            + ", ahead: nothing recorded", false, atMillis, r.nowMillis());
    }
  }

  CompletionStage<Long> resolveAsync(CompletionStage<EventTimeResult> stage, long atMillis,
      long events) {
    return stage.thenApply(r -> resolve(r, atMillis, events));
  }

  CompletionStage<List<Long>> resolveAllAsync(CompletionStage<List<EventTimeResult>> stage,
      long atMillis, long events) {
    return stage.thenApply(rs -> {
      // every result is judged first: a batch refuses (throws) only after counting its drops
      Long[] out = new Long[rs.size()];
      RuntimeException first = null;
      for (int i = 0; i < out.length; i++) {
        try {
          out[i] = resolve(rs.get(i), atMillis, events);
        } catch (EventTimeException e) {
          if (first == null) {
            first = e;
          }
        }
      }
      if (first != null) {
        throw first;
      }
      return List.of(out);
    });
  }

  /** Joins {@code stage}, rethrowing its failure's cause as it was. */
  static <T> T join(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (java.util.concurrent.CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new WindowpaneException(String.valueOf(cause), cause);
    }
  }
}
