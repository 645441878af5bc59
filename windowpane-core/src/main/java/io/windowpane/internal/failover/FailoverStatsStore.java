package io.windowpane.internal.failover;

import io.windowpane.Summary;
import io.windowpane.TopKey;
import io.windowpane.spi.EventTimeResult;
import io.windowpane.spi.StatsStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** Statistics over a chain: records to the first UP member, summaries from the first readable. */
final class FailoverStatsStore extends MemberStores<StatsStore> implements StatsStore {

  FailoverStatsStore(Chain chain, StatsStore[] stores, Journal journal) {
    super(chain, stores, journal, STATS);
  }

  @Override
  public void record(String key, double[] values) {
    Router.join(recordAsync(key, values).toCompletableFuture());
  }

  @Override
  public Summary summary(String key) {
    return Router.join(summaryAsync(key).toCompletableFuture());
  }

  @Override
  public List<Summary> summaryAll(List<String> keys) {
    return Router.join(summaryAllAsync(keys).toCompletableFuture());
  }

  @Override
  public CompletionStage<Void> recordAsync(String key, double[] values) {
    return write(i -> stores[i].recordAsync(key, values), List.of(key), 0, values);
  }

  /**
   * Taken by the first UP member; values taken by a fallback are journaled at their own instant
   * and replayed there into the members before it.
   */
  @Override
  public CompletionStage<EventTimeResult> recordAtAsync(String key, double[] values,
      long atMillis, long maxAheadMillis) {
    return chain.router.<EventTimeResult>route(null, true,
        i -> stores[i].recordAtAsync(key, values, atMillis, maxAheadMillis)).thenApply(a -> {
          EventTimeResult r = a.value();
          if (r.verdict() == EventTimeResult.Verdict.RECORDED) {
            chain.router.journalAt(journal, key, a,
                EventTimeResult.instant(r.nowMillis(), atMillis), 0, values);
          }
          return r;
        });
  }

  @Override
  public CompletionStage<Summary> summaryAsync(String key) {
    return read(i -> stores[i].summaryAsync(key));
  }

  @Override
  public CompletionStage<List<Summary>> summaryAllAsync(List<String> keys) {
    return read(i -> stores[i].summaryAllAsync(keys));
  }

  /** The first readable member's top keys (empty when its engine cannot rank keys). */
  @Override
  public Optional<List<TopKey>> topKeys(int n) {
    return readNow(s -> s.topKeys(n));
  }

  @Override
  public CompletionStage<Void> replay(int member, String key, Journal.Batch batch) {
    return stores[member].replayAsync(key, batch.values(), batch.atMillis, batch.id);
  }
}
