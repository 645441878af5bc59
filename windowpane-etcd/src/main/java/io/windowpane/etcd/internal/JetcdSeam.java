package io.windowpane.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * {@link EtcdSeam} on jetcd: one {@link Client} (gRPC over HTTP/2, round-robin over the
 * endpoints, reconnecting by itself). Each call is one etcd request; the seam retries nothing,
 * the engine decides.
 */
public final class JetcdSeam implements EtcdSeam {

  private final Client client;
  private final KV kv;

  private JetcdSeam(Client client) {
    this.client = client;
    this.kv = client.getKVClient();
  }

  /** A client for {@code endpoints} ({@code http://host:port}). */
  public static JetcdSeam connect(List<String> endpoints, Duration connectTimeout,
      String user, String password) {
    var builder = Client.builder().endpoints(endpoints.toArray(new String[0]))
        .connectTimeout(connectTimeout).waitForReady(false);
    if (user != null) {
      builder.user(ByteSequence.from(user.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
          .password(ByteSequence.from(password.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
    return new JetcdSeam(builder.build());
  }

  private static Snapshot snapshot(GetResponse get, boolean succeeded) {
    List<KeyValue> kvs = get.getKvs();
    long revision = get.getHeader().getRevision();
    if (kvs.isEmpty()) {
      return new Snapshot(null, 0, succeeded, revision);
    }
    KeyValue kv = kvs.get(0);
    return new Snapshot(kv.getValue().getBytes(), kv.getModRevision(), succeeded, revision);
  }

  @Override
  public CompletableFuture<Snapshot> get(byte[] key) {
    return classified(kv.get(ByteSequence.from(key)).thenApply(r -> snapshot(r, true)));
  }

  @Override
  public CompletableFuture<Snapshot> compareAndPut(byte[] key, long expectedModRevision,
      byte[] value, long leaseId) {
    ByteSequence k = ByteSequence.from(key);
    var txn = kv.txn().If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(expectedModRevision)));
    if (value != null) {
      txn = txn.Then(Op.put(k, ByteSequence.from(value),
          PutOption.builder().withLeaseId(leaseId).build()));
    }
    txn = txn.Else(Op.get(k, GetOption.DEFAULT));
    return classified(txn.commit().thenApply((TxnResponse r) -> {
      if (r.isSucceeded()) {
        // the put's revision is the transaction's: the key's new mod revision
        long revision = r.getHeader().getRevision();
        return new Snapshot(value, value == null ? expectedModRevision : revision, true, revision);
      }
      return snapshot(r.getGetResponses().get(0), false);
    }));
  }

  @Override
  public CompletableFuture<List<Snapshot>> getAll(List<byte[]> keys) {
    Op[] gets = new Op[keys.size()];
    for (int i = 0; i < gets.length; i++) {
      gets[i] = Op.get(ByteSequence.from(keys.get(i)), GetOption.DEFAULT);
    }
    return classified(kv.txn().Then(gets).commit().thenApply((TxnResponse r) -> {
      List<GetResponse> answers = r.getGetResponses();
      List<Snapshot> out = new ArrayList<>(answers.size());
      for (GetResponse g : answers) {
        out.add(snapshot(g, true));
      }
      return out;
    }));
  }

  @Override
  public CompletableFuture<List<Snapshot>> compareAndPutAll(List<byte[]> keys,
      long[] expectedModRevisions, List<byte[]> values, long leaseId) {
    int n = keys.size();
    Cmp[] compares = new Cmp[n];
    Op[] puts = new Op[n];
    Op[] reads = new Op[n];
    PutOption withLease = PutOption.builder().withLeaseId(leaseId).build();
    GetOption revisionOnly = GetOption.builder().withKeysOnly(true).build();
    for (int i = 0; i < n; i++) {
      ByteSequence k = ByteSequence.from(keys.get(i));
      compares[i] = new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(expectedModRevisions[i]));
      puts[i] = Op.put(k, ByteSequence.from(values.get(i)), withLease);
      reads[i] = Op.get(k, revisionOnly);
    }
    return classified(kv.txn().If(compares).Then(puts).Else(reads).commit()
        .thenApply((TxnResponse r) -> {
          long revision = r.getHeader().getRevision();
          List<Snapshot> out = new ArrayList<>(n);
          if (r.isSucceeded()) {
            for (int i = 0; i < n; i++) { // every put's revision is the transaction's
              out.add(new Snapshot(values.get(i), revision, true, revision));
            }
            return out;
          }
          for (GetResponse g : r.getGetResponses()) {
            List<KeyValue> kvs = g.getKvs();
            out.add(new Snapshot(null, kvs.isEmpty() ? 0 : kvs.get(0).getModRevision(), false,
                revision));
          }
          return out;
        }));
  }

  @Override
  public CompletableFuture<Snapshot> compareAndDelete(byte[] key, long expectedModRevision) {
    ByteSequence k = ByteSequence.from(key);
    return classified(kv.txn()
        .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(expectedModRevision)))
        .Then(Op.delete(k, DeleteOption.DEFAULT))
        .Else(Op.get(k, GetOption.DEFAULT))
        .commit().thenApply((TxnResponse r) -> r.isSucceeded()
            ? new Snapshot(null, 0, true, r.getHeader().getRevision())
            : snapshot(r.getGetResponses().get(0), false)));
  }

  @Override
  public CompletableFuture<Snapshot> firstChangeAfter(byte[] key, long revision) {
    CompletableFuture<Snapshot> out = new CompletableFuture<>();
    Watch.Watcher watcher = client.getWatchClient().watch(ByteSequence.from(key),
        WatchOption.builder().withRevision(revision + 1).build(),
        Watch.listener((WatchResponse r) -> {
          for (WatchEvent e : r.getEvents()) {
            KeyValue kv = e.getKeyValue();
            out.complete(e.getEventType() == WatchEvent.EventType.PUT
                ? new Snapshot(kv.getValue().getBytes(), kv.getModRevision(), true,
                    kv.getModRevision())
                : new Snapshot(null, kv.getModRevision(), true, kv.getModRevision()));
            return;
          }
        }, e -> out.completeExceptionally(classify(e)),
            () -> out.completeExceptionally(new SeamException(SeamException.Kind.TRANSIENT,
                "watch ended", null))));
    out.whenComplete((s, e) -> watcher.close());
    return out;
  }

  @Override
  public CompletableFuture<Long> revision() {
    return classified(kv.get(ByteSequence.from(new byte[] {0}), GetOption.builder()
        .withCountOnly(true).build()).thenApply(r -> r.getHeader().getRevision()));
  }

  @Override
  public void requestProgress() {
    client.getWatchClient().requestProgress();
  }

  @Override
  public CompletableFuture<Long> grantLease(long ttlSeconds) {
    return classified(client.getLeaseClient().grant(ttlSeconds).thenApply(r -> r.getID()));
  }

  @Override
  public AutoCloseable watch(byte[] prefix, long fromRevision, WatchListener listener) {
    WatchOption option = WatchOption.builder().isPrefix(true).withRevision(fromRevision)
        .withProgressNotify(true).build();
    Watch.Watcher watcher = client.getWatchClient().watch(ByteSequence.from(prefix), option,
        Watch.listener((WatchResponse r) -> {
          for (WatchEvent e : r.getEvents()) {
            KeyValue kv = e.getKeyValue();
            boolean put = e.getEventType() == WatchEvent.EventType.PUT;
            listener.onEvent(kv.getKey().getBytes(), put ? kv.getValue().getBytes() : null,
                kv.getModRevision());
          }
          listener.onProgress(r.getHeader().getRevision());
        }, listener::onLost, () -> listener.onLost(null)));
    return watcher::close;
  }

  @Override
  public void close() {
    client.close();
  }

  private static <T> CompletableFuture<T> classified(CompletableFuture<T> call) {
    return call.handle((v, e) -> {
      if (e != null) {
        throw classify(e);
      }
      return v;
    });
  }

  static SeamException classify(Throwable e) {
    Throwable cause = e;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    String message = String.valueOf(cause.getMessage());
    if (message.contains("requested lease not found")) {
      return new SeamException(SeamException.Kind.LEASE_GONE, message, cause);
    }
    if (cause instanceof EtcdException) {
      switch (((EtcdException) cause).getErrorCode()) {
        case INVALID_ARGUMENT:
        case PERMISSION_DENIED:
        case UNAUTHENTICATED:
        case RESOURCE_EXHAUSTED:
        case FAILED_PRECONDITION:
        case OUT_OF_RANGE:
        case UNIMPLEMENTED:
        case ALREADY_EXISTS:
          return new SeamException(SeamException.Kind.REFUSED, message, cause);
        default:
          return new SeamException(SeamException.Kind.TRANSIENT, message, cause);
      }
    }
    return new SeamException(SeamException.Kind.TRANSIENT, message, cause);
  }
}
