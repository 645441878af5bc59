package io.windowpane.etcd.internal;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/*
 * Design note: a watch-fed local read cache for the counts of one counter store.
 *
 * What it holds: for keys this process has read or written, the key's value and mod revision,
 * kept current by one watch on the store's key prefix. Entries only move forward: an event or a
 * commit replaces an entry only if its mod revision is newer, so a read never goes back in time
 * and always sees this process's own writes (the lane offers each committed value).
 *
 * When it answers: only while the watch is in sync and etcd confirmed its progress recently.
 * A watch delivers changes in revision order without gaps; what it cannot say by itself is how
 * far behind it is. So every maxStaleness/4 the cache asks etcd for a progress notification
 * (RequestProgress), and it answers only if an event or a progress notification arrived within
 * maxStaleness: a cached count then reflects every write etcd committed up to a revision it
 * confirmed at most maxStaleness ago. Otherwise, and for keys it does not hold, the count goes
 * to etcd through the key's lane, and the answer is cached.
 *
 * Resync. If the watch fails or ends (a lost stream jetcd could not resume, or ErrCompacted:
 * the revision it must resume from was compacted away, so events are lost), the cache drops
 * every entry and starts a new watch from the cluster's current revision; entries come back as
 * keys are read. Entries read before the new watch's start revision are never admitted, so
 * nothing the lost events would have changed survives.
 */
final class CountCache implements AutoCloseable {

  /**
   * Most keys held; past it, new keys are not admitted, by reads or by events (they are
   * answered from etcd), so a read can never insert a value an unadmitted event outdated.
   */
  static final int MAX_ENTRIES = 100_000;

  private final Context ctx;
  private final String prefix;
  private final long maxStalenessNanos;
  private final ConcurrentHashMap<String, Snapshot> entries = new ConcurrentHashMap<>();
  private final Object lock = new Object();
  private volatile boolean synced;
  private volatile long startRevision = Long.MAX_VALUE;
  private volatile long heardNanos;
  private AutoCloseable watch; // guarded by lock
  private ScheduledFuture<?> progress; // guarded by lock
  private boolean starting; // guarded by lock
  private boolean closed; // guarded by lock

  CountCache(Context ctx, String prefix, long maxStalenessMillis) {
    this.ctx = ctx;
    this.prefix = prefix;
    this.maxStalenessNanos = maxStalenessMillis * 1_000_000L;
  }

  /** The cached value of {@code key}, or null if the cache cannot answer for it now. */
  Snapshot lookup(String key) {
    if (!synced) {
      start();
      return null;
    }
    if (System.nanoTime() - heardNanos > maxStalenessNanos) {
      return null;
    }
    return entries.get(key);
  }

  /** Offers the key's value as of a commit or read ({@code snap.revision}). */
  void offer(String key, Snapshot snap) {
    if (!synced || snap.revision < startRevision - 1) {
      return; // read before the watch's start: events between might be missing
    }
    if (entries.size() >= MAX_ENTRIES && !entries.containsKey(key)) {
      return;
    }
    entries.merge(key, snap, (old, now) -> now.modRevision > old.modRevision ? now : old);
  }

  private void start() {
    synchronized (lock) {
      if (starting || synced || closed) {
        return;
      }
      starting = true;
    }
    ctx.seam.revision().whenComplete((revision, e) -> {
      synchronized (lock) {
        starting = false;
        if (e != null || closed) {
          return; // the next lookup tries again
        }
        entries.clear();
        startRevision = revision + 1;
        heardNanos = System.nanoTime();
        watch = ctx.seam.watch(prefix.getBytes(StandardCharsets.UTF_8), revision + 1,
            new Listener());
        long period = Math.max(1, maxStalenessNanos / 4_000_000L);
        progress = ctx.executor.scheduleAtFixedRate(ctx.seam::requestProgress, period, period,
            TimeUnit.MILLISECONDS);
        synced = true;
      }
    });
  }

  private final class Listener implements EtcdSeam.WatchListener {
    @Override
    public void onEvent(byte[] key, byte[] value, long modRevision) {
      String k = new String(key, StandardCharsets.UTF_8);
      if (!k.startsWith(prefix)) {
        return;
      }
      String key2 = k.substring(prefix.length());
      if (entries.size() >= MAX_ENTRIES && !entries.containsKey(key2)) {
        return; // full: new keys are answered from etcd (never admitted later, see offer)
      }
      Snapshot now = new Snapshot(value, modRevision, true, modRevision);
      // every changed key is admitted: a read racing with this event then merges by revision
      entries.merge(key2, now, (old, fresh) -> fresh.modRevision > old.modRevision ? fresh : old);
    }

    @Override
    public void onProgress(long revision) {
      heardNanos = System.nanoTime();
    }

    @Override
    public void onLost(Throwable cause) {
      lost();
    }
  }

  /** Events may be lost: forget everything and watch afresh on the next lookup. */
  void lost() {
    synchronized (lock) {
      synced = false;
      entries.clear();
      stopWatch();
    }
  }

  private void stopWatch() {
    if (progress != null) {
      progress.cancel(false);
      progress = null;
    }
    if (watch != null) {
      try {
        watch.close();
      } catch (Exception ignored) {
        // closing a watch that already ended
      }
      watch = null;
    }
  }

  /** Entries held, for tests. */
  int size() {
    return entries.size();
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      synced = false;
      stopWatch();
    }
  }
}
