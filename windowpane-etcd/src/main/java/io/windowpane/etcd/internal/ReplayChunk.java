package io.windowpane.etcd.internal;

import io.windowpane.WindowpaneException;
import io.windowpane.WindowpaneTimeoutException;
import io.windowpane.spi.ReplayBatch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/*
 * Design note: a chunk of replays (replayAllAsync: a failover chain sends up to 64 journal
 * batches in one call) applied to many keys of one store in as few etcd transactions as etcd
 * allows: one, unless the chunk is large or live calls write its keys meanwhile.
 *
 * Shape. The batches are grouped by key, keeping call order within a key. The keys are read in
 * one transaction (one range each), and each key's batches are applied in order to a decoded
 * copy of it, each exactly as the key's lane applies a replay (Pending.decide with a Replay: at
 * its own time, nothing if the key remembers its id, its id remembered once it recorded), so a
 * key's later batches see its earlier ones and a batch repeated in the chunk counts once. The
 * keys whose value changed are then written by one transaction
 *     If(mod(k1) == r1, ..., mod(kn) == rn) Then(put k1 .. kn) Else(get k1 .. kn, keys only)
 * with the store's current lease and one fresh nonce. A key left unchanged (every batch
 * dropped, or already landed) is not written: its batches are answered at the read.
 *
 * Bounds. etcd refuses a transaction with more than --max-txn-ops compares, or puts, or reads
 * (each list counted on its own; default 128), and a request over --max-request-bytes (default
 * 1.5 MiB). So keys are read and written maxTxnOps at a time, and a group's writes are cut so
 * that one transaction puts at most maxValueBytes (the bound of one value) in all. A key is
 * never split: its batches become one put.
 *
 * Live calls. This process's lanes and other processes write the same keys meanwhile. The
 * compare then fails, so nothing of the transaction landed, and its Else branch tells which
 * keys moved: their batches go to their keys' lanes as ordinary replays (coalesced with the live
 * calls there, and retried like them), and the transaction is sent again at once for the keys
 * that did not move, with the values already computed (a key whose mod revision held still has
 * the value they were computed from). Each failed compare hands over at least one key, so a
 * group ends within n + 1 transactions. A lane of a key the chunk wrote learns it from its own
 * failed compare, as from any other writer.
 *
 * Lost answers (timeout, connection, leader change) are retried after a backoff while the
 * deadline allows, from a fresh read: the batches are computed again, and those that landed
 * with the lost transaction find their ids remembered and record nothing (the transaction was
 * all or nothing; Doc says how long ids are remembered). A batch is never applied twice.
 *
 * Answers. A batch's future completes when the write of its key committed, at the read when its
 * key needed none, or by its lane. A batch an exact window refuses fails alone
 * (CapacityExceededException) while the others of its key land; a key whose value would outgrow
 * maxValueBytes, or whose stored state is not windowpane's, fails its own batches. The chunk's
 * stage fails if any batch failed; what landed stays, and the ids make sending it again
 * harmless.
 */
final class ReplayChunk {

  /** One key of the chunk: its batches in call order, and the write computed for them. */
  private static final class Key {
    final String key;
    final byte[] etcdKey;
    final List<Replay> replays = new ArrayList<>(2);
    long modRevision;
    byte[] value;

    Key(String key, byte[] etcdKey) {
      this.key = key;
      this.etcdKey = etcdKey;
    }
  }

  /** Keys read or written together, with the failed calls behind them so far. */
  private static final class Group {
    final List<Key> keys;
    int failures;
    Throwable lastFailure;

    Group(List<Key> keys, int failures, Throwable lastFailure) {
      this.keys = keys;
      this.failures = failures;
      this.lastFailure = lastFailure;
    }

    Group part(List<Key> some) {
      return new Group(new ArrayList<>(some), failures, lastFailure);
    }

    List<byte[]> etcdKeys() {
      List<byte[]> out = new ArrayList<>(keys.size());
      keys.forEach(k -> out.add(k.etcdKey));
      return out;
    }
  }

  /** Builds the replay of one batch, with the call's clock reading and deadline. */
  interface Replays {
    Replay of(ReplayBatch batch, long now, long deadlineNanos);
  }

  private final Lanes lanes;
  private final Context ctx;
  private final long deadlineNanos;

  private ReplayChunk(Lanes lanes, long deadlineNanos) {
    this.lanes = lanes;
    this.ctx = lanes.ctx;
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * Replays {@code batches} into the store of {@code lanes}, each as its {@code replayAsync}
   * would; completes when every batch is answered, exceptionally if any failed. A malformed
   * replay id fails the stage with {@link IllegalArgumentException} before any I/O.
   */
  static CompletableFuture<Void> replay(Lanes lanes, List<ReplayBatch> batches,
      Replays replays) {
    for (ReplayBatch b : batches) {
      IllegalArgumentException bad = Replay.checkId(b.replayId());
      if (bad != null) {
        return CompletableFuture.failedFuture(bad);
      }
    }
    long now = lanes.now();
    ReplayChunk chunk = new ReplayChunk(lanes, lanes.deadline());
    Map<String, Key> byKey = new LinkedHashMap<>();
    CompletableFuture<?>[] answers = new CompletableFuture<?>[batches.size()];
    for (int i = 0; i < answers.length; i++) {
      ReplayBatch b = batches.get(i);
      Replay r = replays.of(b, now, chunk.deadlineNanos);
      byKey.computeIfAbsent(b.key(), k -> new Key(k, lanes.etcdKey(k))).replays.add(r);
      answers[i] = r.future;
    }
    List<Key> keys = new ArrayList<>(byKey.values());
    for (int from = 0; from < keys.size(); from += lanes.ctx.maxTxnOps) {
      chunk.read(new Group(new ArrayList<>(keys.subList(from,
          Math.min(keys.size(), from + lanes.ctx.maxTxnOps))), 0, null));
    }
    return Lanes.unwrapped(CompletableFuture.allOf(answers).thenApply(x -> (Void) null));
  }

  /** Reads the group's keys in one transaction, then computes their writes. */
  private void read(Group g) {
    if (expired(g)) {
      return;
    }
    ctx.bounded(ctx.seam.getAll(g.etcdKeys())).whenCompleteAsync((snaps, e) -> {
      if (e != null) {
        failed(g, e, 0);
      } else {
        compute(g, snaps);
      }
    }, ctx.executor);
  }

  /** Applies each key's batches to its value as read; commits the keys that changed. */
  private void compute(Group g, List<Snapshot> snaps) {
    long nonce = ctx.nonce();
    List<Key> writes = new ArrayList<>(g.keys.size());
    for (int i = 0; i < g.keys.size(); i++) {
      Key k = g.keys.get(i);
      Snapshot s = snaps.get(i);
      boolean changed = false;
      Doc doc = lanes.newDoc();
      try {
        doc.load(s.value);
        for (Replay r : k.replays) {
          changed |= r.decide(doc);
        }
      } catch (RuntimeException bad) {
        fail(k, bad instanceof WindowpaneException ? (WindowpaneException) bad
            : new WindowpaneException(about(k) + ": " + bad.getMessage(), bad));
        continue;
      }
      if (!changed) {
        lanes.observed(k.key, s);
        answer(k);
        continue;
      }
      byte[] value = doc.encode(nonce);
      if (value.length > ctx.maxValueBytes) {
        fail(k, new WindowpaneException(about(k) + " would hold " + value.length + " bytes; one"
            + " etcd value may hold at most " + ctx.maxValueBytes + " (maxValueBytes)"));
        continue;
      }
      k.modRevision = s.modRevision;
      k.value = value;
      writes.add(k);
    }
    int from = 0;
    long bytes = 0;
    for (int i = 0; i < writes.size(); i++) {
      int size = writes.get(i).value.length;
      if (i > from && bytes + size > ctx.maxValueBytes) {
        commit(g.part(writes.subList(from, i)));
        from = i;
        bytes = 0;
      }
      bytes += size;
    }
    if (from < writes.size()) {
      commit(g.part(writes.subList(from, writes.size())));
    }
  }

  /** One transaction putting every key of the group if none moved since it was read. */
  private void commit(Group g) {
    if (expired(g)) {
      return;
    }
    int n = g.keys.size();
    long[] revisions = new long[n];
    List<byte[]> values = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      revisions[i] = g.keys.get(i).modRevision;
      values.add(g.keys.get(i).value);
    }
    ctx.bounded(ctx.leases.lease(lanes.leaseClass)).whenCompleteAsync((lease, e) -> {
      if (e != null) {
        failed(g, e, 0);
        return;
      }
      ctx.transactions.increment();
      ctx.bounded(ctx.seam.compareAndPutAll(g.etcdKeys(), revisions, values, lease))
          .whenCompleteAsync((snaps, x) -> {
            if (x != null) {
              failed(g, x, lease);
            } else {
              committed(g, snaps);
            }
          }, ctx.executor);
    }, ctx.executor);
  }

  private void committed(Group g, List<Snapshot> snaps) {
    if (snaps.get(0).succeeded) {
      for (int i = 0; i < g.keys.size(); i++) {
        Key k = g.keys.get(i);
        lanes.observed(k.key, snaps.get(i)); // before any caller returns: a later read sees it
        answer(k);
      }
      return;
    }
    ctx.conflicts.increment();
    List<Key> held = new ArrayList<>(g.keys.size());
    for (int i = 0; i < g.keys.size(); i++) {
      Key k = g.keys.get(i);
      if (snaps.get(i).modRevision == k.modRevision) {
        held.add(k);
      } else {
        handOver(k);
      }
    }
    if (held.size() == g.keys.size()) { // no key moved, yet a compare failed: let lanes decide
      held.forEach(this::handOver);
    } else if (!held.isEmpty()) {
      commit(g.part(held));
    }
  }

  /** A call failed: retry from a fresh read if it may help and time allows, else fail. */
  private void failed(Group g, Throwable e, long lease) {
    Throwable cause = e;
    while (cause.getCause() != null && !(cause instanceof SeamException)) {
      cause = cause.getCause();
    }
    SeamException.Kind kind = cause instanceof SeamException
        ? ((SeamException) cause).kind() : SeamException.Kind.TRANSIENT;
    g.failures++;
    g.lastFailure = cause;
    ctx.lostAnswers.increment();
    if (kind == SeamException.Kind.REFUSED) {
      WindowpaneException refused = new WindowpaneException("etcd refused a replay transaction"
          + " over " + g.keys.size() + " keys of '" + lanes.name + "' (maxTxnOps = "
          + ctx.maxTxnOps + ": etcd's --max-txn-ops must be at least this): "
          + cause.getMessage(), cause);
      g.keys.forEach(k -> fail(k, refused));
      return;
    }
    if (kind == SeamException.Kind.LEASE_GONE) {
      ctx.leases.lost(lanes.leaseClass, lease);
    }
    ctx.later(kind == SeamException.Kind.LEASE_GONE ? 0 : ctx.failureBackoffMicros(g.failures),
        () -> read(g));
  }

  /** Fails the group's batches if the deadline passed; true if it did. */
  private boolean expired(Group g) {
    if (System.nanoTime() - deadlineNanos <= 0) {
      return false;
    }
    WindowpaneTimeoutException late = new WindowpaneTimeoutException("etcd: no answer for a"
        + " replay of " + g.keys.size() + " keys of '" + lanes.name + "' within "
        + ctx.timeoutMillis + " ms" + (g.failures > 0 ? " (" + g.failures
        + " failed attempts, the last: " + g.lastFailure + ")" : ""), g.lastFailure);
    g.keys.forEach(k -> fail(k, late));
    return true;
  }

  /** Completes the key's batches with their answers (operations decided here are counted). */
  private void answer(Key k) {
    ctx.operations.add(k.replays.size());
    k.replays.forEach(Pending::complete);
  }

  private void fail(Key k, RuntimeException failure) {
    ctx.operations.add(k.replays.size());
    k.replays.forEach(r -> r.future.completeExceptionally(failure));
  }

  /** Sends the key's batches through its lane, as replayAsync would (the lane counts them). */
  private void handOver(Key k) {
    k.replays.forEach(r -> lanes.submit(k.key, r));
  }

  private String about(Key k) {
    return "etcd: key '" + k.key + "' of '" + lanes.name + "'";
  }
}
