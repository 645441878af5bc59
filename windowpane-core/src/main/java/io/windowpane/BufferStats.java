package io.windowpane;

/**
 * A snapshot of a buffering counter's or statistics window's counters since it was made
 * ({@link WindowCounter#bufferStats()}, {@link WindowStats#bufferStats()}), for metrics.
 *
 * @param flushes engine calls that sent buffered events or values (background, early and
 *     {@code flush()} calls, and the synchronous calls of a counter whose view was stale)
 * @param flushedEvents events (counter) or values (statistics) those calls recorded
 * @param localAnswers calls answered on this node without waiting for the engine: a counter's
 *     {@code add}/{@code count} from a fresh view and every {@code record}; a statistics
 *     window's records
 * @param engineAnswers calls that waited for the engine: a counter's {@code add}/{@code count}
 *     on a stale view; a statistics window's summaries
 * @param lostEvents events or values dropped because the call that carried them failed
 *     (backend down, timeout): never recorded, never retried
 */
public record BufferStats(long flushes, long flushedEvents, long localAnswers,
    long engineAnswers, long lostEvents) {

  /** {@code localAnswers / (localAnswers + engineAnswers)}; 0 before any call. */
  public double localAnswerRatio() {
    long all = localAnswers + engineAnswers;
    return all == 0 ? 0 : (double) localAnswers / all;
  }
}
