package io.windowpane.etcd.internal;

import io.windowpane.WindowpaneException;
import io.windowpane.WindowpaneTimeoutException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/*
 * Design note: one key's operations in one process, coalesced into compare-and-swap
 * transactions on the key's mod revision.
 *
 * Why. A naive loop (read, compute, Txn(If mod == r) Then(Put)) run by every caller of a hot
 * key collapses under contention: each commit invalidates every other caller's read, so most
 * transactions fail and retry (docs/benchmarks.md: 522 decisions/s at 16 threads and 201 at 64,
 * 6.5 and 14 lost compares per decision, and give-ups). Callers of one process never need
 * to compete with each other: they queue here, and one transaction decides them all.
 *
 * How. Callers append to a lock-free queue; whoever flips `running` from false to true starts
 * a drain on the engine's executor. A drain takes up to MAX_BATCH operations, applies them in
 * queue order to a private decoded copy of the key (each at its own clock reading, see Doc),
 * and commits once: Txn(If modRevision == r) Then(Put new value with the current lease)
 * Else(Get). The value and mod revision of the last commit stay cached here, so a busy key
 * costs one round trip per batch; a cold key reads first. While a transaction is in flight new
 * callers queue up and form the next batch, so batches grow with the load (group commit).
 *   - Compare failed (another process wrote): the Else branch's read is current; recompute the
 *     whole batch from it after a jittered pause. After `conflictRetries` failed compares in a
 *     row the batch fails with WindowpaneException naming the exhausted budget.
 *   - Fairness between processes. The last writer knows the key's revision at once while the
 *     others learn it from a failed compare, so if only losers backed off, the last writer
 *     would keep the key for as long as it has callers (measured: losers starved through 33
 *     compares in a row with four processes on one key). So on a key that another process
 *     wrote within the last second, every lane pauses before each transaction: a winner
 *     uniformly in [0, base], a lane that lost k times in a row in [0, base / (1 + k)]. The
 *     pause is jittered but does not grow: one process never has more than one transaction in
 *     flight per key, so there is no retry storm to damp, only a lottery to make fair and
 *     tilted towards whoever waited longest.
 *   - A batch that only reads or is wholly denied records nothing: computed from a fresh read it
 *     needs no transaction; from the cache it commits a compare-only transaction (no write) to
 *     prove the cache current.
 *   - A lost answer (timeout, connection, leader change) is retried after a backoff while the
 *     operations' deadlines allow, re-reading the key first; the write's nonce tells whether it
 *     already landed (see Doc), so nothing is applied twice.
 * Answers complete only after the commit, so every answer is linearizable at its transaction.
 */
final class KeyLane {

  /** Most operations decided by one transaction. */
  static final int MAX_BATCH = 512;

  /** Largest value an idle lane keeps cached (a pane counter needs about 100 bytes; exact statistics can reach 1.5 MB). */
  static final int MAX_IDLE_CACHED_BYTES = 4 * 1024;

  private final Lanes lanes;
  private final Context ctx;
  final String key;
  private final byte[] etcdKey;
  private final ConcurrentLinkedQueue<Pending<?>> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean();
  /** The key as of this lane's last commit or read; only touched by the running drain. */
  private Snapshot cached;
  /** The nonce of this lane's last committed write; only touched by the running drain. */
  private long lastNonce;
  /** Until when (System.nanoTime) the key counts as written by other processes too. */
  private long contendedUntilNanos = System.nanoTime();

  /** How long a key stays contended after the last sign of another writer. */
  private static final long CONTENDED_NANOS = 1_000_000_000L; // 1 s

  KeyLane(Lanes lanes, String key, byte[] etcdKey) {
    this.lanes = lanes;
    this.ctx = lanes.ctx;
    this.key = key;
    this.etcdKey = etcdKey;
  }

  void submit(Pending<?> p) {
    queue.add(p);
    trigger();
  }

  private void trigger() {
    if (running.compareAndSet(false, true)) {
      ctx.executor.execute(this::next);
    }
  }

  /** Takes the next batch, or stops when the queue is empty. */
  private void next() {
    List<Pending<?>> batch = new ArrayList<>();
    Pending<?> p;
    while (batch.size() < MAX_BATCH && (p = queue.poll()) != null) {
      batch.add(p);
    }
    if (batch.isEmpty()) {
      running.set(false);
      if (!queue.isEmpty()) {
        trigger();
      } else {
        if (cached != null && cached.value != null && cached.value.length > MAX_IDLE_CACHED_BYTES) {
          cached = null; // benign race: a drain starting now reads the key instead
        }
        lanes.idle(this);
      }
      return;
    }
    ctx.operations.add(batch.size());
    new Attempt(batch).read();
  }

  /** One batch until it commits or fails. */
  private final class Attempt {
    private final List<Pending<?>> batch;
    private int conflicts;
    private int failures;
    private Throwable lastFailure;
    private long triedNonce;
    private long triedRevision = -1; // the compared revision of a put whose answer was lost

    Attempt(List<Pending<?>> batch) {
      this.batch = batch;
    }

    /** Starts from the cache, or reads the key first. */
    void read() {
      if (!dropExpired()) {
        return;
      }
      if (cached != null && triedRevision < 0) {
        compute(cached, false);
        return;
      }
      ctx.bounded(ctx.seam.get(etcdKey)).whenCompleteAsync((s, e) -> {
        if (e != null) {
          failed(e, 0);
          return;
        }
        cached = s;
        if (triedRevision >= 0) {
          resolveLostWrite(s);
          return;
        }
        compute(s, true);
      }, ctx.executor);
    }

    /**
     * Whether the put whose answer was lost landed, judged on the key's current value {@code s}:
     * not if the key is unchanged since the compared revision; yes if its recent nonces carry
     * ours; else by the first change after the compared revision in etcd's history (only that
     * one could have been ours, since ours compared on that revision).
     */
    private void resolveLostWrite(Snapshot s) {
      long revision = triedRevision;
      triedRevision = -1;
      Doc doc;
      try {
        doc = lanes.newDoc().load(s.value);
      } catch (RuntimeException bad) {
        finish(new WindowpaneException("etcd: key '" + key + "' of '" + lanes.name + "': "
            + bad.getMessage(), bad));
        return;
      }
      if (s.modRevision == revision) {
        compute(s, true); // it did not land
        return;
      }
      if (doc.wroteRecently(triedNonce)) {
        landed();
        return;
      }
      ctx.seam.firstChangeAfter(etcdKey, revision)
          .orTimeout(ctx.callTimeoutMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
          .whenCompleteAsync((first, e) -> {
            if (e != null) {
              finish(new WindowpaneTimeoutException("etcd: the answer to a write of key '" + key
                  + "' of '" + lanes.name + "' was lost, the key changed since, and etcd's"
                  + " history no longer tells whether the write was applied (" + e + ")", e));
              return;
            }
            boolean ours;
            try {
              ours = first.value != null
                  && lanes.newDoc().load(first.value).newestNonce() == triedNonce;
            } catch (RuntimeException bad) {
              ours = false;
            }
            if (ours) {
              landed();
            } else {
              compute(s, true);
            }
          }, ctx.executor);
    }

    /** Whether {@code s} carries the write of {@code nonce}. */
    private boolean ownWrite(Snapshot s, long nonce) {
      try {
        return lanes.newDoc().load(s.value).wroteRecently(nonce);
      } catch (RuntimeException bad) {
        return false;
      }
    }

    private void landed() {
      lastNonce = triedNonce;
      finish(null); // the lost write landed: its answers stand
    }

    /** Fails the operations whose deadline passed; false if none is left. */
    private boolean dropExpired() {
      long now = System.nanoTime();
      for (Iterator<Pending<?>> it = batch.iterator(); it.hasNext(); ) {
        Pending<?> p = it.next();
        if (now - p.deadlineNanos > 0) {
          p.future.completeExceptionally(new WindowpaneTimeoutException("etcd: no answer for key '"
              + key + "' of '" + lanes.name + "' within " + ctx.timeoutMillis + " ms"
              + (failures > 0 ? " (" + failures + " failed attempts, the last: " + lastFailure
              + ")" : ""), lastFailure));
          it.remove();
        }
      }
      if (batch.isEmpty()) {
        ctx.executor.execute(KeyLane.this::next);
        return false;
      }
      return true;
    }

    /** Decides the batch on {@code snap}; commits if needed. */
    void compute(Snapshot snap, boolean fresh) {
      Doc doc = lanes.newDoc();
      boolean changed = false;
      try {
        doc.load(snap.value);
        if (doc.newestNonce() != 0 && doc.newestNonce() != lastNonce) {
          contendedUntilNanos = System.nanoTime() + CONTENDED_NANOS; // another process wrote
        }
        for (Pending<?> p : batch) {
          changed |= p.decide(doc);
        }
      } catch (RuntimeException bad) {
        finish(bad instanceof WindowpaneException ? bad : new WindowpaneException("etcd: key '"
            + key + "' of '" + lanes.name + "': " + bad.getMessage(), bad));
        return;
      }
      if (!changed && fresh) {
        finish(null);
        return;
      }
      long nonce = ctx.nonce();
      byte[] value = changed ? doc.encode(nonce) : null;
      if (value != null && value.length > ctx.maxValueBytes) {
        finish(new WindowpaneException("etcd: key '" + key + "' of '" + lanes.name + "' would"
            + " hold " + value.length + " bytes; one etcd value may hold at most "
            + ctx.maxValueBytes + " (maxValueBytes)"));
        return;
      }
      if (value == null) {
        commit(snap, null, 0, 0);
        return;
      }
      long leaseClass = lanes.leaseClass;
      ctx.bounded(ctx.leases.lease(leaseClass)).whenCompleteAsync((lease, e) -> {
        if (e != null) {
          failed(e, 0);
        } else {
          commit(snap, value, lease, nonce);
        }
      }, ctx.executor);
    }

    private void commit(Snapshot snap, byte[] value, long lease, long nonce) {
      ctx.transactions.increment();
      ctx.bounded(ctx.seam.compareAndPut(etcdKey, snap.modRevision, value, lease))
          .whenCompleteAsync((r, e) -> {
            if (e != null) {
              if (value != null) {
                triedNonce = nonce;
                triedRevision = snap.modRevision;
              }
              failed(e, lease);
              return;
            }
            cached = r.succeeded && value == null ? snap : r; // a compare-only commit returns no value
            if (r.succeeded) {
              if (value != null) {
                lastNonce = nonce;
              }
              finish(null);
              return;
            }
            if (value != null && ownWrite(r, nonce)) {
              triedNonce = nonce;
              landed(); // a retried request whose first try landed (not by default in jetcd)
              return;
            }
            conflicts++;
            ctx.conflicts.increment();
            if (conflicts > ctx.conflictRetries) {
              ctx.exhausted.increment();
              finish(new WindowpaneException("etcd: retry budget exhausted for key '" + key
                  + "' of '" + lanes.name + "': " + conflicts + " transactions in a row lost"
                  + " their compare-and-swap to other writers (conflictRetries = "
                  + ctx.conflictRetries + ")"));
              return;
            }
            ctx.later(ctx.contentionPauseMicros(conflicts), () -> {
              if (dropExpired()) {
                compute(cached, true);
              }
            });
          }, ctx.executor);
    }

    /** A call failed: retry if it may help and time allows, else fail the batch. */
    private void failed(Throwable e, long lease) {
      Throwable cause = e;
      while (cause.getCause() != null && !(cause instanceof SeamException)) {
        cause = cause.getCause();
      }
      SeamException.Kind kind = cause instanceof SeamException
          ? ((SeamException) cause).kind() : SeamException.Kind.TRANSIENT;
      failures++;
      lastFailure = cause;
      ctx.lostAnswers.increment();
      if (kind == SeamException.Kind.REFUSED) {
        finish(new WindowpaneException("etcd refused a call on key '" + key + "' of '"
            + lanes.name + "': " + cause.getMessage(), cause));
        return;
      }
      if (kind == SeamException.Kind.LEASE_GONE) {
        ctx.leases.lost(lanes.leaseClass, lease);
      }
      cached = null;
      ctx.later(kind == SeamException.Kind.LEASE_GONE ? 0 : ctx.failureBackoffMicros(failures),
          this::read);
    }

    /** Completes every operation with its answer (or all with {@code failure}); next batch. */
    private void finish(RuntimeException failure) {
      if (failure == null && cached != null) {
        lanes.observed(key, cached); // before any caller returns: a later read sees this
      }
      for (Pending<?> p : batch) {
        if (failure == null) {
          p.complete();
        } else {
          p.future.completeExceptionally(failure);
        }
      }
      if (failure != null) {
        cached = null;
      }
      boolean contended = System.nanoTime() - contendedUntilNanos < 0;
      ctx.later(contended ? ctx.contentionPauseMicros(0) : 0, KeyLane.this::next);
    }
  }
}
