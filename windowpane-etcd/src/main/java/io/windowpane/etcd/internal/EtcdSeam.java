package io.windowpane.etcd.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The one seam between the engine and its etcd client: read a key, compare-and-put it on its
 * mod revision, grant a lease, watch a prefix, close. jetcd types stay behind it; failures come
 * back as {@link SeamException}s that say whether a retry may help.
 */
public interface EtcdSeam extends AutoCloseable {

  /** A linearizable read of {@code key}. */
  CompletableFuture<Snapshot> get(byte[] key);

  /**
   * One transaction: if {@code key}'s mod revision is {@code expectedModRevision} (0: the key is
   * absent), put {@code value} with {@code leaseId} (no put if {@code value} is null), else read
   * the key. The answer says which branch ran and carries the key's value and mod revision
   * after it.
   */
  CompletableFuture<Snapshot> compareAndPut(byte[] key, long expectedModRevision, byte[] value,
      long leaseId);

  /**
   * A linearizable read of {@code keys} in one transaction (no compares, one range per key), all
   * as of the same revision; answers in the order of {@code keys}. At most etcd's
   * {@code --max-txn-ops} keys.
   */
  CompletableFuture<List<Snapshot>> getAll(List<byte[]> keys);

  /**
   * One transaction over several distinct keys: if the mod revision of every {@code keys[i]} is
   * {@code expectedModRevisions[i]} (0: absent), put each {@code values[i]} (non-null) with
   * {@code leaseId}, else read the mod revision of every key (no values). All or nothing: the
   * puts land together or none does. Answers in the order of {@code keys}: after the puts each
   * key's value and new mod revision, succeeded; after a failed compare each key's mod revision
   * (0: absent) with a null value, not succeeded. At most etcd's {@code --max-txn-ops} keys (it
   * counts compares, puts and reads each on their own, so one per key).
   */
  CompletableFuture<List<Snapshot>> compareAndPutAll(List<byte[]> keys,
      long[] expectedModRevisions, List<byte[]> values, long leaseId);

  /**
   * One transaction: if {@code key}'s mod revision is {@code expectedModRevision}, delete it,
   * else read it. The answer says which branch ran; after a delete it carries no value, mod
   * revision 0 and the delete's revision.
   */
  CompletableFuture<Snapshot> compareAndDelete(byte[] key, long expectedModRevision);

  /**
   * The first change of {@code key} after {@code revision} (a put: its value and mod revision;
   * a delete: a null value), from etcd's history; fails if that history was compacted.
   */
  CompletableFuture<Snapshot> firstChangeAfter(byte[] key, long revision);

  /** The cluster's current revision (a linearizable read). */
  CompletableFuture<Long> revision();

  /** Asks etcd to report the progress of every watch of this client (etcd 3.4+). */
  void requestProgress();

  /** Grants a lease of {@code ttlSeconds}; completes with its id. */
  CompletableFuture<Long> grantLease(long ttlSeconds);

  /**
   * Watches the keys under {@code prefix} from revision {@code fromRevision}; events and
   * failures go to {@code listener} (on the client's threads). Closing the handle cancels.
   */
  AutoCloseable watch(byte[] prefix, long fromRevision, WatchListener listener);

  /** Answers of a watch. */
  interface WatchListener {
    /** A put ({@code value} non-null) or delete of {@code key} at {@code modRevision}. */
    void onEvent(byte[] key, byte[] value, long modRevision);

    /** All events up to {@code revision} were delivered (a batch ended). */
    void onProgress(long revision);

    /** The watch ended: compaction past its revision, a lost stream, or cancellation. */
    void onLost(Throwable cause);
  }

  @Override
  void close();
}
