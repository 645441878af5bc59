package io.windowpane.bench.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.windowpane.bench.redis.Outcome;
import java.util.concurrent.atomic.LongAdder;

/**
 * Plain {@code put(key, value)} per call, through jetcd: the ceiling. It decides nothing and
 * reads nothing; etcd still commits (and fsyncs) every put through raft, so this is what one
 * write per call costs on this server.
 */
final class PutContender implements EtcdContender {

  private static final ByteSequence VALUE = Jetcd.bytes("1");

  private final Client client;
  private final KV kv;
  private final EtcdSettings settings;
  private final LongAdder puts = new LongAdder();
  private ByteSequence[] keys;

  PutContender(EtcdSettings settings) {
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
    puts.increment();
    Jetcd.await(kv.put(keys[keyIndex], VALUE), settings.timeoutMillis());
    return Outcome.COUNTED;
  }

  @Override
  public EtcdCounts counts() {
    long n = puts.sum();
    return new EtcdCounts(n, n, 0, 0, 0);
  }

  @Override
  public void close() {
    client.close();
  }
}
