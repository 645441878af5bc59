package io.windowpane.bench.etcd;

/**
 * What a contender's client did, counted by the client itself: a snapshot, subtracted from the
 * one taken when the measured interval began.
 *
 * @param operations decisions started (puts, for the plain-put contender)
 * @param transactions writes sent to etcd: puts, or compare-and-swap transactions won or lost
 * @param reads plain reads sent to etcd ({@code get} before each compare of the naive loop;
 *     the engine's reads are not counted by its metrics and show as 0)
 * @param retries attempts that had to be made again: lost compares (the naive loop; the engine's
 *     conflicts) plus, for the engine, calls to etcd that failed and were retried
 * @param gaveUp decisions abandoned: the naive loop's attempts used up, the engine's exhausted
 *     retry budgets
 */
record EtcdCounts(long operations, long transactions, long reads, long retries, long gaveUp) {

  static final EtcdCounts ZERO = new EtcdCounts(0, 0, 0, 0, 0);

  EtcdCounts minus(EtcdCounts earlier) {
    return new EtcdCounts(operations - earlier.operations, transactions - earlier.transactions,
        reads - earlier.reads, retries - earlier.retries, gaveUp - earlier.gaveUp);
  }
}
