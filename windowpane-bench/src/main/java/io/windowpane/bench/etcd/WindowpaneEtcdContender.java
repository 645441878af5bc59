package io.windowpane.bench.etcd;

import io.windowpane.Limit;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.bench.redis.Outcome;
import io.windowpane.etcd.EtcdEngine;
import io.windowpane.etcd.EtcdMetrics;
import java.time.Duration;

/**
 * windowpane's etcd engine: {@code RateLimiter.tryConsume(key, 1)} on a {@code SLIDING_PANES}
 * limiter (default 60 s in 60 panes), the engine's defaults (conflict budget 64, backoff 2 ms,
 * system clock) except the timeout, which is the run's as for the other contenders. The engine
 * coalesces the concurrent calls of this process on one key into one transaction.
 *
 * <p>Counts come from {@link EtcdEngine#metrics()}: operations, transactions (committed or
 * lost), retries = conflicts (compares lost to another writer) + lost answers (calls to etcd
 * that failed and were retried), give-ups = exhausted retry budgets. Its reads are not counted.
 */
final class WindowpaneEtcdContender implements EtcdContender {

  private final EtcdEngine engine;
  private final Windowpane windowpane;
  private final RateLimiter limiter;
  private String[] keys;

  WindowpaneEtcdContender(EtcdSettings settings) {
    this.engine = EtcdEngine.builder()
        .endpoints(settings.endpoint())
        .namespace(settings.prefix())
        .timeout(Duration.ofMillis(settings.timeoutMillis()))
        .build();
    this.windowpane = Windowpane.using(engine);
    WindowSpec spec = WindowSpec.panes(Duration.ofMillis(settings.windowMillis()), settings.panes());
    this.limiter = windowpane.limiter("bench", Limit.of(settings.limit(), spec));
  }

  @Override
  public void prepare(String[] names) {
    keys = names.clone();
  }

  @Override
  public Outcome decide(int keyIndex) {
    return limiter.tryConsume(keys[keyIndex], 1) ? Outcome.ALLOWED : Outcome.DENIED;
  }

  @Override
  public EtcdCounts counts() {
    EtcdMetrics m = engine.metrics();
    return new EtcdCounts(m.operations(), m.transactions(), 0, m.conflicts() + m.lostAnswers(),
        m.exhausted());
  }

  @Override
  public void close() {
    windowpane.close();
  }
}
