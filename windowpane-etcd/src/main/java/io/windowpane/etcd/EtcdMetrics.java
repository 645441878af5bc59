package io.windowpane.etcd;

/**
 * Counts of what an {@link EtcdEngine} did since it was built: a snapshot, immutable.
 *
 * <ul>
 *   <li>{@link #operations()}: calls decided (one per key of a batch call);
 *   <li>{@link #transactions()}: compare-and-swap transactions committed or lost, reads
 *       excluded; with coalescing, fewer than operations on busy keys;
 *   <li>{@link #conflicts()}: transactions whose compare failed because another process wrote
 *       the key first (each was retried after a jittered backoff);
 *   <li>{@link #exhausted()}: batches that failed because conflicts used up the retry budget;
 *   <li>{@link #lostAnswers()}: calls to etcd that failed or timed out and were retried.
 * </ul>
 */
public final class EtcdMetrics {

  private final long operations;
  private final long transactions;
  private final long conflicts;
  private final long exhausted;
  private final long lostAnswers;

  public EtcdMetrics(long operations, long transactions, long conflicts, long exhausted,
      long lostAnswers) {
    this.operations = operations;
    this.transactions = transactions;
    this.conflicts = conflicts;
    this.exhausted = exhausted;
    this.lostAnswers = lostAnswers;
  }

  public long operations() {
    return operations;
  }

  public long transactions() {
    return transactions;
  }

  public long conflicts() {
    return conflicts;
  }

  public long exhausted() {
    return exhausted;
  }

  public long lostAnswers() {
    return lostAnswers;
  }

  @Override
  public String toString() {
    return "EtcdMetrics[operations=" + operations + ", transactions=" + transactions
        + ", conflicts=" + conflicts + ", exhausted=" + exhausted + ", lostAnswers="
        + lostAnswers + "]";
  }
}
