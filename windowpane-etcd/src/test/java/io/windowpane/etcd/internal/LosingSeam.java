package io.windowpane.etcd.internal;

import java.util.concurrent.CompletableFuture;

/**
 * A {@link MemorySeam} whose next writes land but whose answers are lost: a test sets
 * {@link #loseAnswers} and that many compare-and-put, compare-and-delete or multi-key
 * compare-and-put calls apply their write, then fail as a dropped connection would
 * ({@link SeamException.Kind#TRANSIENT}).
 */
final class LosingSeam implements EtcdSeam {

  final MemorySeam memory = new MemorySeam();
  volatile int loseAnswers;
  volatile int writes;
  /** Runs once, before the next multi-key compare-and-put (another writer's turn). */
  volatile Runnable beforeMultiKeyWrite;

  private <T> CompletableFuture<T> maybeLost(CompletableFuture<T> answer) {
    writes++;
    if (loseAnswers > 0) {
      loseAnswers--;
      return CompletableFuture.failedFuture(new SeamException(SeamException.Kind.TRANSIENT,
          "connection reset (the write landed)", null));
    }
    return answer;
  }

  @Override
  public CompletableFuture<Snapshot> get(byte[] key) {
    return memory.get(key);
  }

  @Override
  public CompletableFuture<Snapshot> compareAndPut(byte[] key, long expectedModRevision,
      byte[] value, long leaseId) {
    return maybeLost(memory.compareAndPut(key, expectedModRevision, value, leaseId));
  }

  @Override
  public CompletableFuture<java.util.List<Snapshot>> getAll(java.util.List<byte[]> keys) {
    return memory.getAll(keys);
  }

  @Override
  public CompletableFuture<java.util.List<Snapshot>> compareAndPutAll(
      java.util.List<byte[]> keys, long[] expected, java.util.List<byte[]> values,
      long leaseId) {
    Runnable before = beforeMultiKeyWrite;
    beforeMultiKeyWrite = null;
    if (before != null) {
      before.run();
    }
    return maybeLost(memory.compareAndPutAll(keys, expected, values, leaseId));
  }

  @Override
  public CompletableFuture<Snapshot> compareAndDelete(byte[] key, long expectedModRevision) {
    return maybeLost(memory.compareAndDelete(key, expectedModRevision));
  }

  @Override
  public CompletableFuture<Snapshot> firstChangeAfter(byte[] key, long revision) {
    return memory.firstChangeAfter(key, revision);
  }

  @Override
  public CompletableFuture<Long> revision() {
    return memory.revision();
  }

  @Override
  public void requestProgress() {
    memory.requestProgress();
  }

  @Override
  public CompletableFuture<Long> grantLease(long ttlSeconds) {
    return memory.grantLease(ttlSeconds);
  }

  @Override
  public AutoCloseable watch(byte[] prefix, long fromRevision, WatchListener listener) {
    return memory.watch(prefix, fromRevision, listener);
  }

  @Override
  public void close() {
    memory.close();
  }
}
