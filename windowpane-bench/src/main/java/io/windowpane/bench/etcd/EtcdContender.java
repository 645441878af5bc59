package io.windowpane.bench.etcd;

import io.windowpane.bench.redis.Contender;

/**
 * A {@link Contender} against etcd that counts what its client did (round trips, lost compares,
 * give-ups), so the report can say what each decision cost.
 */
interface EtcdContender extends Contender {

  /** The counts so far; cheap, callable while callers run. */
  EtcdCounts counts();
}
