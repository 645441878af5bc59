package io.windowpane.etcd.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * An in-memory {@link EtcdSeam} for unit tests: one revision counter, keys with mod revisions,
 * compare-and-put, and watches that tests can break on purpose ({@link #loseWatches}).
 * Synchronized; answers complete at once.
 */
final class MemorySeam implements EtcdSeam {

  private final Map<String, Snapshot> keys = new HashMap<>();
  private final List<WatchListener> watches = new ArrayList<>();
  private long revision = 1;
  int watchesStarted;
  int progressRequests;
  /** As etcd's --max-txn-ops: multi-key calls over more keys are refused. */
  int maxTxnOps = 128;
  int multiKeyReads;
  int multiKeyWrites;
  int largestMultiKeyWriteBytes;

  private static String k(byte[] key) {
    return new String(key, java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public synchronized CompletableFuture<Snapshot> get(byte[] key) {
    Snapshot s = keys.get(k(key));
    return CompletableFuture.completedFuture(s == null ? new Snapshot(null, 0, true, revision)
        : new Snapshot(s.value, s.modRevision, true, revision));
  }

  @Override
  public CompletableFuture<Snapshot> compareAndPut(byte[] key, long expected, byte[] value,
      long leaseId) {
    List<WatchListener> notify;
    Snapshot out;
    synchronized (this) {
      Snapshot s = keys.get(k(key));
      long mod = s == null ? 0 : s.modRevision;
      if (mod != expected) {
        return CompletableFuture.completedFuture(new Snapshot(s == null ? null : s.value, mod,
            false, revision));
      }
      if (value == null) {
        return CompletableFuture.completedFuture(new Snapshot(null, expected, true, revision));
      }
      revision++;
      out = new Snapshot(Arrays.copyOf(value, value.length), revision, true, revision);
      keys.put(k(key), out);
      notify = new ArrayList<>(watches);
    }
    for (WatchListener w : notify) {
      w.onEvent(key, value, out.modRevision);
      w.onProgress(out.modRevision);
    }
    return CompletableFuture.completedFuture(out);
  }

  @Override
  public synchronized CompletableFuture<List<Snapshot>> getAll(List<byte[]> keys) {
    if (keys.size() > maxTxnOps) {
      return CompletableFuture.failedFuture(new SeamException(SeamException.Kind.REFUSED,
          "etcdserver: too many operations in txn request", null));
    }
    List<Snapshot> out = new ArrayList<>();
    for (byte[] key : keys) {
      out.add(get(key).join());
    }
    multiKeyReads++;
    return CompletableFuture.completedFuture(out);
  }

  @Override
  public CompletableFuture<List<Snapshot>> compareAndPutAll(List<byte[]> keys, long[] expected,
      List<byte[]> values, long leaseId) {
    List<WatchListener> notify;
    List<Snapshot> out = new ArrayList<>();
    synchronized (this) {
      multiKeyWrites++;
      if (keys.size() > maxTxnOps) {
        return CompletableFuture.failedFuture(new SeamException(SeamException.Kind.REFUSED,
            "etcdserver: too many operations in txn request", null));
      }
      int bytes = 0;
      for (byte[] v : values) {
        bytes += v.length;
      }
      largestMultiKeyWriteBytes = Math.max(largestMultiKeyWriteBytes, bytes);
      boolean held = true;
      for (int i = 0; i < keys.size(); i++) {
        Snapshot s = keys(keys.get(i));
        held &= (s == null ? 0 : s.modRevision) == expected[i];
      }
      if (!held) {
        for (byte[] key : keys) {
          Snapshot s = keys(key);
          out.add(new Snapshot(null, s == null ? 0 : s.modRevision, false, revision));
        }
        return CompletableFuture.completedFuture(out);
      }
      revision++;
      for (int i = 0; i < keys.size(); i++) {
        byte[] v = values.get(i);
        Snapshot put = new Snapshot(Arrays.copyOf(v, v.length), revision, true, revision);
        this.keys.put(k(keys.get(i)), put);
        out.add(put);
      }
      notify = new ArrayList<>(watches);
    }
    for (WatchListener w : notify) {
      for (int i = 0; i < keys.size(); i++) {
        w.onEvent(keys.get(i), values.get(i), out.get(i).modRevision);
      }
      w.onProgress(out.get(0).modRevision);
    }
    return CompletableFuture.completedFuture(out);
  }

  private Snapshot keys(byte[] key) {
    return keys.get(k(key));
  }

  @Override
  public synchronized CompletableFuture<Snapshot> compareAndDelete(byte[] key, long expected) {
    Snapshot s = keys.get(k(key));
    long mod = s == null ? 0 : s.modRevision;
    if (mod != expected || s == null) {
      return CompletableFuture.completedFuture(new Snapshot(s == null ? null : s.value, mod,
          false, revision));
    }
    keys.remove(k(key)); // watches are not told: no unit test deletes under a watch
    revision++;
    return CompletableFuture.completedFuture(new Snapshot(null, 0, true, revision));
  }

  @Override
  public CompletableFuture<Snapshot> firstChangeAfter(byte[] key, long revision) {
    return CompletableFuture.failedFuture(new SeamException(SeamException.Kind.REFUSED,
        "no history in memory", null));
  }

  @Override
  public synchronized CompletableFuture<Long> revision() {
    return CompletableFuture.completedFuture(revision);
  }

  @Override
  public void requestProgress() {
    List<WatchListener> notify;
    long r;
    synchronized (this) {
      progressRequests++;
      notify = new ArrayList<>(watches);
      r = revision;
    }
    notify.forEach(w -> w.onProgress(r));
  }

  @Override
  public CompletableFuture<Long> grantLease(long ttlSeconds) {
    return CompletableFuture.completedFuture(42L);
  }

  @Override
  public synchronized AutoCloseable watch(byte[] prefix, long fromRevision,
      WatchListener listener) {
    watches.add(listener);
    watchesStarted++;
    return () -> {
      synchronized (this) {
        watches.remove(listener);
      }
    };
  }

  /** Writes {@code value} under {@code key} behind the engine's back, WITHOUT telling watches. */
  synchronized void putSilently(String key, byte[] value) {
    revision++;
    keys.put(key, new Snapshot(value, revision, true, revision));
  }

  /** Ends every watch as a compaction past its revision would. */
  void loseWatches() {
    List<WatchListener> lost;
    synchronized (this) {
      lost = new ArrayList<>(watches);
      watches.clear();
    }
    lost.forEach(w -> w.onLost(new IllegalStateException("mvcc: required revision has been compacted")));
  }

  synchronized byte[] value(String key) {
    Snapshot s = keys.get(key);
    return s == null ? null : s.value;
  }

  @Override
  public void close() {}
}
