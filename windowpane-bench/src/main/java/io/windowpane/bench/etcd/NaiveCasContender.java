package io.windowpane.bench.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.windowpane.bench.redis.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The compare-and-swap increment users write first, one decision per call:
 *
 * <pre>
 * repeat up to N times (default 20):
 *   get(key)                                   -> count (0 if absent), mod revision r
 *   if count >= limit: denied
 *   Txn If (mod_revision(key) == r) Then put(key, count + 1) Else nothing
 *   won: allowed; lost: go round again at once (or after a fixed pause)
 * gave up
 * </pre>
 *
 * A fixed count with no window (no expiry either): strictly less work per decision than a
 * sliding window, which only flatters it. Every thread of the process calls on its own, so
 * on a hot key they race each other: of the threads that read revision r, one wins.
 */
final class NaiveCasContender implements EtcdContender {

  private final Client client;
  private final KV kv;
  private final EtcdSettings settings;
  private final LongAdder operations = new LongAdder();
  private final LongAdder transactions = new LongAdder();
  private final LongAdder reads = new LongAdder();
  private final LongAdder lost = new LongAdder();
  private final LongAdder gaveUp = new LongAdder();
  private ByteSequence[] keys;

  NaiveCasContender(EtcdSettings settings) {
    this.settings = settings;
    this.client = Jetcd.client(settings.endpoint());
    this.kv = client.getKVClient();
  }

  @Override
  public void prepare(String[] names) {
    keys = new ByteSequence[names.length];
    for (int i = 0; i < names.length; i++) {
      keys[i] = Jetcd.bytes(settings.prefix() + "/" + names[i]);
    }
  }

  @Override
  public Outcome decide(int keyIndex) throws Exception {
    ByteSequence key = keys[keyIndex];
    long timeout = settings.timeoutMillis();
    operations.increment();
    for (int attempt = 1; attempt <= settings.naiveAttempts(); attempt++) {
      reads.increment();
      GetResponse got = Jetcd.await(kv.get(key), timeout);
      long count = 0;
      long revision = 0; // etcd compares an absent key's mod revision as 0
      if (!got.getKvs().isEmpty()) {
        KeyValue kvs = got.getKvs().get(0);
        count = Long.parseLong(kvs.getValue().toString(StandardCharsets.US_ASCII));
        revision = kvs.getModRevision();
      }
      if (count >= settings.limit()) {
        return Outcome.DENIED;
      }
      transactions.increment();
      TxnResponse txn = Jetcd.await(kv.txn()
          .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(revision)))
          .Then(Op.put(key, Jetcd.bytes(Long.toString(count + 1)), PutOption.DEFAULT))
          .commit(), timeout);
      if (txn.isSucceeded()) {
        return Outcome.ALLOWED;
      }
      lost.increment();
      if (settings.naivePauseMicros() > 0 && attempt < settings.naiveAttempts()) {
        LockSupport.parkNanos(settings.naivePauseMicros() * 1_000);
      }
    }
    gaveUp.increment();
    return Outcome.GAVE_UP;
  }

  @Override
  public EtcdCounts counts() {
    return new EtcdCounts(operations.sum(), transactions.sum(), reads.sum(), lost.sum(),
        gaveUp.sum());
  }

  @Override
  public void close() {
    client.close();
  }
}
