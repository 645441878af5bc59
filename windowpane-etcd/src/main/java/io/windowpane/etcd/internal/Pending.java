package io.windowpane.etcd.internal;

import java.util.concurrent.CompletableFuture;

/**
 * One caller's operation on one key, waiting in its key's {@link KeyLane}: its clock reading
 * (taken once, when the caller called), its deadline, and its answer once the transaction that
 * decided it committed.
 *
 * @param <R> the answer's type
 */
abstract class Pending<R> {

  final long now;
  final long deadlineNanos;
  final CompletableFuture<R> future = new CompletableFuture<>();
  R answer;
  RuntimeException refusal;

  Pending(long now, long deadlineNanos) {
    this.now = now;
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * Applies the operation to {@code doc} at effective time {@code eff}, setting
   * {@link #answer}; returns true if it recorded anything. May throw a
   * {@link io.windowpane.CapacityExceededException} having changed nothing.
   */
  abstract boolean apply(Doc doc, long eff);

  /**
   * Applies the operation to {@code doc} at its effective time (the later of {@link #now} and
   * the key's time) and notes what it recorded in the key's time and expiry; a
   * {@link io.windowpane.CapacityExceededException} becomes {@link #refusal}, with nothing
   * recorded. Returns whether it recorded anything. What a key's lane and a chunk of replays
   * (see ReplayChunk) both do for each operation, in order, on their decoded copy of the key.
   */
  final boolean decide(Doc doc) {
    refusal = null;
    long eff = doc.effective(now);
    try {
      if (apply(doc, eff)) {
        doc.recorded(eff, eventTime(eff));
        return true;
      }
    } catch (io.windowpane.CapacityExceededException full) {
      refusal = full;
    }
    return false;
  }

  /**
   * When the events {@link #apply} recorded at effective time {@code eff} happened: {@code eff}
   * itself, except for a {@link Replay}.
   */
  long eventTime(long eff) {
    return eff;
  }

  /** Completes the caller's future with the answer of the committed attempt. */
  void complete() {
    if (refusal != null) {
      future.completeExceptionally(refusal);
    } else {
      future.complete(answer);
    }
  }
}
